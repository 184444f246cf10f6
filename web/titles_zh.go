package web

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/view"
)

// The Chinese of the tooltips computed in Go: a title attribute holds one
// language, so the templates write the English in title and this in
// data-title-zh, and static/lang.js shows the page's language. Each is the
// English function's twin, case for case.

func recordTitleZh(r view.Record) string {
	switch {
	case r.Control != "":
		return "producer " + strconv.FormatInt(r.ProducerID, 10) + " 的事务的 " + r.Control + " 标记：一条控制记录，占一个 offset，但从不返回给应用。点击打开它的 batch。"
	case r.Txn == "aborted":
		return "写在一个已中止的事务中：read_uncommitted 的 consumer 仍会读到它，read_committed 的会跳过它。点击打开它的 batch。"
	case r.Txn == "open":
		return "写在一个尚未决定的事务中：在它的标记写入之前，read_committed 的 consumer 不能越过它读取。点击打开它的 batch。"
	}
	s := "已提交：在 high watermark 之下，consumer 可见"
	if !r.Committed {
		s = "尚未提交：在 high watermark 之上，consumer 还读不到"
	}
	if r.Acked {
		s += "；已向它的 producer 确认"
	}
	return s + "。点击打开它的 batch。"
}

func leaderStateTitleZh(p view.Partition) string {
	const fence = "controller 要在 broker.session.timeout.ms 内收不到心跳之后，才会 fence 一个 broker 并选出另一个 leader"
	switch p.LeaderState() {
	case "no replica yet":
		s := fmt.Sprintf("broker %d 已重启，还没有打开这个分区；元数据仍按它上一次运行把它列为 leader：%s。", p.Leader, fence)
		if p.ShownBroker != 0 {
			s += fmt.Sprintf("图中的记录来自 broker %d。", p.ShownBroker)
		}
		return s
	case "offline":
		return fmt.Sprintf("broker %d 上的这个分区处于离线状态（它的日志出错：磁盘已满或故障）；broker 的心跳报告之后，controller 会转移 leader", p.Leader)
	case "not leading yet":
		return fmt.Sprintf("broker %d 还没有应用让它在 epoch %d 成为 leader 的元数据", p.Leader, p.LeaderEpoch)
	}
	return "controller 仍把它列为 leader：" + fence
}

func segmentTitleZh(s view.Segment) string {
	state := ""
	if s.Active {
		state = "（活跃：追加写到这里）"
	}
	return fmt.Sprintf("%s%s：%d 个索引条目，%d 个时间索引条目", s.File, state, len(s.Index), s.TimeIndex)
}

func ownerBadgeTitleZh(o partitionOwner) string {
	return fmt.Sprintf("消费者组 %s：归 %s 所有", o.Group, o.Client)
}

func txnStateTitleZh(s string) string {
	switch s {
	case "UNINITIALIZED":
		return "还没有 producer id：initTransactions（或幂等 producer 的第一次发送）会申请一个"
	case "INITIALIZING":
		return "已发送 InitProducerId：等待 producer id 和 epoch"
	case "READY":
		return "已有 producer id；没有未完成的事务"
	case "IN_TRANSACTION":
		return "已执行 beginTransaction：发送的内容都属于这个事务"
	case "COMMITTING_TRANSACTION":
		return "已发送 EndTxn(commit)：coordinator 写入 COMMIT 标记"
	case "ABORTING_TRANSACTION":
		return "已发送 EndTxn(abort)：coordinator 写入 ABORT 标记"
	case "ABORTABLE_ERROR":
		return "一次发送失败：这个事务只能中止"
	case "FATAL_ERROR":
		return "被 fence 或已损坏（例如 PRODUCER_FENCED）：这个实例只能关闭"
	}
	return ""
}

// LeadsTextZh is LeadsText in Chinese: every partition, named in full.
func (n diagramNode) LeadsTextZh() string {
	s := "不是任何分区的 leader"
	if len(n.Leads) > 0 {
		s = "是 " + strings.Join(n.Leads, ", ") + " 的 leader"
	}
	if len(n.Named) > 0 {
		s += " · 被列为 " + strings.Join(n.Named, ", ") + " 的 leader，但没有担任"
	}
	return s
}

func metadataLagTitleZh(c view.Cluster, b view.Broker) string {
	return strconv.FormatInt(c.MetadataOffset-b.MetadataOffset, 10) + " 条已提交的元数据记录还没有重放：这个 broker 依据的是一幅较旧的集群图景"
}

func replicaOfflineTitle(broker int) words {
	return words{
		fmt.Sprintf("broker %d holds this partition offline: its log could not be opened or could not take a write (a full or failing disk). Kafka stops serving the replicas of a failed log directory and tells the controller, which moves their leadership; restart the broker once the disk is fixed", broker),
		fmt.Sprintf("broker %d 上的这个分区处于离线状态：它的日志无法打开或无法写入（磁盘已满或故障）。Kafka 停止服务故障日志目录中的副本并通知 controller，由它转移 leader；磁盘修好后重启这个 broker", broker),
	}
}

func replicaNotOpenedTitle(broker int) words {
	return words{
		fmt.Sprintf("broker %d runs but has not opened this partition: a restarted broker opens its logs once it has registered and replayed the metadata that assigns them", broker),
		fmt.Sprintf("broker %d 在运行，但还没有打开这个分区：重启的 broker 要在注册并重放了分配这些日志的元数据之后才打开它们", broker),
	}
}

func replicaTrackTitle(broker int, leo, hw int64) words {
	return words{
		fmt.Sprintf("broker %d holds offsets up to %d; its high watermark is %d", broker, leo, hw),
		fmt.Sprintf("broker %d 持有到 offset %d 的数据；它的 high watermark 是 %d", broker, leo, hw),
	}
}

func sideTitle(side string) words {
	return words{
		"network partition: reaches only the nodes on side " + side + " and those the partition does not name",
		"网络分区：只能到达 " + side + " 侧的节点，以及网络分区没有点名的节点",
	}
}

func dropTitle(id uint64) words {
	return words{"drop this message on the wire: " + dropCommand(id), "在线路上丢弃这条网络消息：" + dropCommand(id)}
}

// linkToggleZh is linkToggle's label in Chinese.
func linkToggleZh(c view.Cluster, from, to string) string {
	a, okA := labNodeName(c, from)
	b, okB := labNodeName(c, to)
	if !okA || !okB || a == b {
		return ""
	}
	if linkIsCut(c, from, to) {
		return fmt.Sprintf("修复被切断的链路 %s–%s（net heal %s %s）", from, to, a, b)
	}
	return fmt.Sprintf("切断链路 %s–%s：修复之前，两个方向都没有任何东西能通过（net cut %s %s）", from, to, a, b)
}

// dropLabelZh is dropLabel in Chinese.
func dropLabelZh(l diagramLink) string {
	return fmt.Sprintf("在线路上丢弃网络消息 #%d，%s %s → %s（net drop id=%d）", l.MessageID, l.Kind, l.From, l.To, l.MessageID)
}

// messageTitleZh is messageTitle in Chinese.
func messageTitleZh(m view.Message) string {
	switch {
	case m.InFlight:
		return fmt.Sprintf("%s → %s：%s，发送于 %s，在途直到 %s", m.From, m.To, m.Kind, m.SentAt, m.DeliverAt)
	case m.Fate == "dropped":
		return fmt.Sprintf("%s → %s：%s，发送于 %s，被网络丢弃", m.From, m.To, m.Kind, m.SentAt)
	case m.Fate == "lost":
		return fmt.Sprintf("%s → %s：%s，发送于 %s，丢失：一端已宕机", m.From, m.To, m.Kind, m.SentAt)
	}
	return fmt.Sprintf("%s → %s：%s，发送于 %s，投递于 %s", m.From, m.To, m.Kind, m.SentAt, m.DeliverAt)
}
