package lessons

import (
	"fmt"
	"strings"
)

// Module is a part of the catalogue: the lessons on one subsystem of
// Kafka, which a trainer plans as a block. A lesson names its module with
// `module: ID`; the catalogue lists the modules in this order, each
// lesson under its module in the lessons' own order (their numbers stay
// the catalogue's: "lesson 19" is the same lesson in every module's list).
type Module struct {
	ID   string `json:"id"`
	Name Text   `json:"-"`
}

// modules are the catalogue's modules, in the order it shows them: the
// path of a record (a log, produced into partitions, replicated), the
// metadata that steers it, the consumers that read it, exactly-once across
// all of it, and what only the workshop server can measure. A lesson's
// prerequisites are never in a later module (TestPrerequisitesComeInEarlierModules),
// so a trainer may run the modules in this order.
var modules = []Module{
	{ID: "storage", Name: Text{En: "Storage: the log on disk", Zh: "存储：磁盘上的日志"}},
	{ID: "producing", Name: Text{En: "Producing: partitions and batches", Zh: "生产记录：分区与 batch"}},
	{ID: "replication", Name: Text{En: "Replication and durability", Zh: "副本复制与持久性"}},
	{ID: "kraft", Name: Text{En: "KRaft: the metadata quorum", Zh: "KRaft：元数据 quorum"}},
	{ID: "consumer-groups", Name: Text{En: "Consumer groups", Zh: "消费者组"}},
	{ID: "transactions", Name: Text{En: "Exactly-once: idempotence and transactions", Zh: "恰好一次：幂等与事务"}},
	{ID: "native", Name: Text{En: "The workshop server (native mode)", Zh: "workshop 服务器（原生模式）"}},
}

// Modules lists the catalogue's modules in the order it shows them.
func Modules() []Module { return append([]Module(nil), modules...) }

// ModuleByID returns the module with that id.
func ModuleByID(id string) (Module, bool) {
	for _, m := range modules {
		if m.ID == id {
			return m, true
		}
	}
	return Module{}, false
}

func moduleIDs() string {
	ids := make([]string, len(modules))
	for i, m := range modules {
		ids[i] = m.ID
	}
	return strings.Join(ids, ", ")
}

// checkCatalogue holds the lessons (in their order) to what only the whole
// catalogue can tell: each names a module, and each prerequisite (`after:`)
// is another lesson's id that comes earlier in the catalogue, so a trainer
// who follows the order never meets a lesson before the ones it builds on.
func checkCatalogue(all []*Lesson) error {
	byID := make(map[string]*Lesson, len(all))
	for _, l := range all {
		byID[l.ID] = l
	}
	for _, l := range all {
		if l.Module == "" {
			return &ParseError{File: l.File, Line: 1, Reason: fmt.Sprintf("the lesson has no module: (one of %s)", moduleIDs())}
		}
		for _, id := range l.After {
			p, ok := byID[id]
			switch {
			case !ok:
				return &ParseError{File: l.File, Line: l.AfterLine, Reason: fmt.Sprintf("after: no lesson has the id %q (a prerequisite is another lesson's id:)", id)}
			case p == l:
				return &ParseError{File: l.File, Line: l.AfterLine, Reason: fmt.Sprintf("after: %q is this lesson itself", id)}
			case p.Order >= l.Order:
				return &ParseError{File: l.File, Line: l.AfterLine, Reason: fmt.Sprintf("after: %q is lesson %d, which comes after this one (%d) in the catalogue: a prerequisite must come earlier", id, p.Order, l.Order)}
			}
		}
	}
	return nil
}
