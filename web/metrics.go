package web

import (
	"math"
	"strconv"
	"strings"

	"github.com/loglab/loglab/engine/view"
)

// The metrics panel's and the charts' numbers and words, computed here so
// metrics.templ and charts.templ only draw.

// metricValue is a metric's value as a dashboard prints it: a count, a
// latency in ms, or NaN as Kafka reports an empty window.
func metricValue(m view.KafkaMetric) string {
	if m.NaN {
		return "NaN"
	}
	switch m.Kind {
	case view.Avg:
		return strconv.FormatFloat(m.Value, 'f', 1, 64)
	default:
		return strconv.FormatFloat(m.Value, 'f', -1, 64)
	}
}

// metricUnit is what the value counts.
func metricUnit(m view.KafkaMetric) words {
	switch {
	case m.Kind == view.Meter:
		return words{"Count (since the broker or controller started)", "Count（自 broker 或 controller 启动以来的累计值）"}
	case m.Kind == view.Avg:
		return words{"ms, mean over the last 2 × 30 s windows", "ms，最近 2 个 30 秒窗口的平均值"}
	case m.Kind == view.Max:
		return words{"records, max over the last 2 × 30 s windows", "条记录，最近 2 个 30 秒窗口的最大值"}
	}
	return words{"gauge, now", "gauge，当前值"}
}

// metricRate is a meter's OneMinuteRate as JMX prints it, per second.
func metricRate(m view.KafkaMetric) string {
	return strconv.FormatFloat(m.Rate, 'f', 3, 64) + "/s"
}

// metricDelta is the change the last command caused: "+1", "-2", "0", or
// "" when there is nothing to compare.
func metricDelta(m view.KafkaMetric) string {
	if !m.HasDelta {
		return ""
	}
	d := m.Delta
	s := strconv.FormatFloat(d, 'f', -1, 64)
	if m.Kind == view.Avg {
		s = strconv.FormatFloat(d, 'f', 1, 64)
	}
	if d > 0 {
		return "+" + s
	}
	return s
}

// deltaClass colours a delta: up, down or none.
func deltaClass(m view.KafkaMetric) string {
	switch {
	case !m.HasDelta || m.Delta == 0:
		return "delta zero"
	case m.Delta > 0:
		return "delta up"
	}
	return "delta down"
}

// metricScope says what the number adds up.
func metricScope(m view.KafkaMetric) words {
	switch m.Scope {
	case "brokers":
		return words{"sum over the running brokers (each reports its own; a restart starts from 0)", "所有运行中 broker 之和（各自上报；重启后从 0 开始）"}
	case "controller":
		return words{"reported by the controllers from the committed metadata", "由 controller 根据已提交的元数据上报"}
	case "controllers":
		return words{"sum over the controllers: 1 on the active one, 0 on the others", "所有 controller 之和：active controller 上为 1，其余为 0"}
	}
	return words{"client " + m.Client, "客户端 " + m.Client}
}

// metricMeaning says what a metric tells the operator watching it.
func metricMeaning(name string) words {
	switch name {
	case "UnderReplicatedPartitions":
		return words{"partitions a broker leads whose ISR is smaller than the replica set; should be 0", "broker 作为 leader 的分区中 ISR 小于副本集的个数；应为 0"}
	case "UnderMinIsrPartitionCount":
		return words{"partitions a broker leads whose ISR is below min.insync.replicas: acks=all writes are refused", "broker 作为 leader 的分区中 ISR 小于 min.insync.replicas 的个数：acks=all 写入会被拒绝"}
	case "OfflinePartitionsCount":
		return words{"partitions with no leader: nobody can read or write them; should be 0", "没有 leader 的分区：无法读写；应为 0"}
	case "ActiveControllerCount":
		return words{"exactly one controller should have 1", "应当恰好有一个 controller 为 1"}
	case "IsrShrinksPerSec":
		return words{"a leader took a lagging follower out of the ISR (AlterPartition); a fenced broker leaves the ISR by the controller and is not counted", "leader 把落后的 follower 移出 ISR（AlterPartition）；被 fence 的 broker 由 controller 移出 ISR，不计入"}
	case "IsrExpandsPerSec":
		return words{"a follower caught up and rejoined the ISR", "follower 追上并重新加入 ISR"}
	case "FailedProduceRequestsPerSec":
		return words{"appends the leader refused (NOT_ENOUGH_REPLICAS, sequence errors…); each retry counts again; NOT_LEADER_OR_FOLLOWER does not", "leader 拒绝的追加（NOT_ENOUGH_REPLICAS、序号错误…）；每次重试都再计一次；NOT_LEADER_OR_FOLLOWER 不计"}
	case "LeaderElectionRateAndTimeMs":
		return words{"ZooKeeper-era metric that Kafka 4 (KRaft) no longer registers: here, the partition leader changes the controller committed", "ZooKeeper 时代的指标，Kafka 4（KRaft）已不再注册：此处统计 controller 提交的分区 leader 变更"}
	case "UncleanLeaderElectionsPerSec":
		return words{"a replica outside the ISR was elected: acknowledged records may be lost; should be 0", "选出了 ISR 之外的副本：已确认的记录可能丢失；应为 0"}
	case "records-lag-max":
		return words{"how far the consumer was behind the high watermark when poll returned records", "poll 返回记录时 consumer 落后于 high watermark 的最大条数"}
	case "request-latency-avg":
		return words{"produce request sent to answer received", "produce 请求从发出到收到应答的时间"}
	}
	return words{}
}

// chartW and chartH are a chart's viewBox; the SVG scales to its box.
const chartW, chartH = 320.0, 120.0

// chartPad leaves room for the axis labels.
const chartPadL, chartPadR, chartPadT, chartPadB = 34.0, 6.0, 6.0, 16.0

// chartDrawing is one chart ready to draw.
type chartDrawing struct {
	Key   string // data-chart
	Title words
	Lines []chartLine
	YMax  string // the y axis' top label
	XFrom string // the x axis' first and last time
	XTo   string
}

// chartLine is one series: its polylines (a gap where it had no value)
// and the colour slot it takes.
type chartLine struct {
	Name   string
	Color  int
	Points []string // each a polyline's points attribute
	Last   string   // its latest value, for the legend
}

// drawCharts lays out c's charts: throughput, consumer lag, ISR size, then
// HW vs LEO per partition. A chart with no series is left out.
func drawCharts(c view.Charts) []chartDrawing {
	var out []chartDrawing
	add := func(key string, title words, series []view.Series) {
		if len(series) > 0 {
			out = append(out, drawChart(key, title, c.TimesMs, series))
		}
	}
	pick := func(chart string) []view.Series {
		var s []view.Series
		for _, x := range c.Series {
			if x.Chart == chart {
				s = append(s, x)
			}
		}
		return s
	}
	add("throughput", words{"Throughput (records/s): MessagesInPerSec on the leaders vs records consumed by poll", "吞吐量（条/秒）：leader 上的 MessagesInPerSec 与 poll 消费的记录数"}, pick("throughput"))
	add("lag", words{"Consumer lag (records-lag summed over each consumer's partitions)", "消费积压（lag：每个 consumer 各分区 records-lag 之和）"}, pick("lag"))
	add("isr", words{"ISR size per partition", "各分区 ISR 大小"}, pick("isr"))
	for _, x := range c.Series {
		if tp, ok := strings.CutPrefix(x.Chart, "hw-leo/"); ok && !seenChart(out, x.Chart) {
			add(x.Chart, words{"HW vs LEO · " + tp, "HW 与 LEO · " + tp}, pick(x.Chart))
		}
	}
	return out
}

func seenChart(cs []chartDrawing, key string) bool {
	for _, c := range cs {
		if c.Key == key {
			return true
		}
	}
	return false
}

// drawChart scales series to the viewBox: x is virtual time from the
// first sample to the last, y from 0 to the largest value.
func drawChart(key string, title words, times []int64, series []view.Series) chartDrawing {
	d := chartDrawing{Key: key, Title: title}
	if len(times) == 0 {
		return d
	}
	t0, t1 := times[0], times[len(times)-1]
	ymax := 0.0
	for _, s := range series {
		for _, v := range s.Values {
			ymax = math.Max(ymax, v)
		}
	}
	top := niceCeil(ymax)
	d.YMax, d.XFrom, d.XTo = strconv.FormatFloat(top, 'f', -1, 64), msLabel(t0), msLabel(t1)
	x := func(t int64) float64 {
		if t1 == t0 {
			return chartW - chartPadR
		}
		// float64(): no fused multiply-add on any platform, so native and
		// WASM draw the same coordinates.
		return chartPadL + float64(float64(t-t0)/float64(t1-t0)*(chartW-chartPadL-chartPadR))
	}
	y := func(v float64) float64 { return chartH - chartPadB - float64(v/top*(chartH-chartPadT-chartPadB)) }
	// Every series of a chart shares its times: each x is printed once.
	xs := make([]string, len(times))
	for j, t := range times {
		xs[j] = coord(x(t))
	}
	var pts []byte // the run of points being drawn: "x,y x,y …"
	for i, s := range series {
		l := chartLine{Name: s.Name, Color: i % 8, Last: "—"}
		flush := func() {
			if len(pts) > 0 {
				l.Points = append(l.Points, string(pts))
			}
			pts = pts[:0]
		}
		last := -1 // the last value drawn, which the legend prints
		for j, v := range s.Values {
			if j >= len(times) || v < 0 {
				flush()
				continue
			}
			if len(pts) > 0 {
				pts = append(pts, ' ')
			}
			pts = append(pts, xs[j]...)
			pts = append(pts, ',')
			pts = appendCoord(pts, y(v))
			last = j
		}
		flush()
		if last >= 0 {
			prec := -1
			if key == "throughput" {
				prec = 0
			}
			l.Last = strconv.FormatFloat(s.Values[last], 'f', prec, 64)
		}
		d.Lines = append(d.Lines, l)
	}
	return d
}

// niceCeil rounds a chart's top up to a round number (1, 1.2, 1.5, 2, 2.5,
// 3, 4, 5, 6 or 8 times a power of ten), so the line fills most of the
// chart and the axis label reads easily (1 for an empty chart).
func niceCeil(v float64) float64 {
	if v <= 10 {
		// Small counts (an ISR size) keep their own top.
		return max(1, math.Ceil(v))
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func coord(f float64) string { return string(appendCoord(nil, f)) }

// appendCoord appends what strconv.FormatFloat(f, 'f', 1, 64) prints, the
// exact value rounded to one decimal, found without its general algorithm:
// the charts print thousands of coordinates a drawing, and in the browser
// lab that algorithm was a tenth of drawing a playing cluster. f×10 is
// within 1e-7 of the exact product for any f below 1e8, so rounding it to
// an integer rounds the same way unless it lies that near a half (or f is
// negative, huge or NaN): FormatFloat decides those.
func appendCoord(dst []byte, f float64) []byte {
	t := f * 10
	if !(t >= 0 && t < 1e9) {
		return strconv.AppendFloat(dst, f, 'f', 1, 64)
	}
	whole := math.Floor(t)
	frac := t - whole
	if math.Abs(frac-0.5) < 1e-6 {
		return strconv.AppendFloat(dst, f, 'f', 1, 64)
	}
	n := int64(whole)
	if frac > 0.5 {
		n++
	}
	dst = strconv.AppendInt(dst, n/10, 10)
	return append(dst, '.', byte('0'+n%10))
}

// msLabel prints a virtual time as the cluster clock does: 1.5s, 250ms.
func msLabel(ms int64) string {
	if ms < 1000 {
		return strconv.FormatInt(ms, 10) + "ms"
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + "s"
}

// chartBox are the viewBox attribute and the axes' geometry.
var chartBox = "0 0 " + coord(chartW) + " " + coord(chartH)
