package web

import (
	"fmt"

	"github.com/loglab/loglab/engine/view"
)

// What the inspector says when the segment it opened is gone (the engine
// marks it: lab.inspectorNow): the panel keeps what the segment held,
// which is how the lookup or the batch was, and says that the file is no
// longer there and how to look again.

func lookupGoneWords(tr view.LookupTrace) words {
	return words{
		fmt.Sprintf("Segment %s is gone from broker %d: retention (or a truncation) deleted it after this lookup, so a read of offset %d would not find it there now. The steps below are the lookup as it ran. Look again: show lookup %s offset=%d",
			tr.Segment, tr.Broker, tr.Target, tr.Partition, tr.Target),
		fmt.Sprintf("segment %s 已不在 broker %d 上：这次查找之后，保留策略（或一次截断）删除了它，现在读取 offset %d 已不会在那里找到它。下面是当时查找的步骤。重新查找：show lookup %s offset=%d",
			tr.Segment, tr.Broker, tr.Target, tr.Partition, tr.Target),
	}
}

func batchGoneWords(b view.BatchDetail) words {
	return words{
		fmt.Sprintf("Segment %s is gone from broker %d: retention (or a truncation) deleted it after this batch was opened. Below are the bytes it held.", b.File, b.Broker),
		fmt.Sprintf("segment %s 已不在 broker %d 上：打开这个 batch 之后，保留策略（或一次截断）删除了它。下面是它当时保存的字节。", b.File, b.Broker),
	}
}
