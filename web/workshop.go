package web

import (
	"fmt"
	"time"

	"github.com/loglab/loglab/engine/view"
)

// LiveInfo is who watches which cluster on a live page: the workshop bar
// above the console says it, and app.js reads the cluster's id from the
// page to open its websocket.
type LiveInfo struct {
	// ClusterID is the cluster shown: "live" for the instructor's.
	ClusterID string
	// OwnerName is the participant who owns it; empty for the instructor's.
	OwnerName string
	// CanDrive: the viewer's commands run on this cluster.
	CanDrive bool
	// Instructor: the viewer holds the instructor's token.
	Instructor bool
	// OwnCluster is the viewer's own participant cluster, empty when none.
	OwnCluster string
	// Commands are what the console completes and explains: the lab's
	// commands in help's order, then the server's own (not in the browser lab).
	Commands []view.CommandHelp
}

// ClusterRow is one cluster on the instructor's overview.
type ClusterRow struct {
	ID          string
	Owner       string // "instructor" or the participant's name
	Topics      []string
	LastCommand string
	LastActive  time.Time
	Viewers     int
	// Lesson is the lesson its owner plays and where, nil in free play;
	// Health what its cluster's state says is wrong, nil with no cluster.
	Lesson *OverviewLesson
	Health *OverviewHealth
}

// OverviewLesson is a cluster's lesson on the overview: lesson Number,
// titled as in the catalogue (HTML), at step Step (from 1) of Steps.
type OverviewLesson struct {
	Number           int
	ID               string
	TitleEn, TitleZh string
	Step, Steps      int
	StepName         string // the step's slug in the lesson file
	Goal             bool   // a goal step: the learner acts
}

// OverviewHealth is what the overview warns of: the invariant violations
// the cluster's checker reported and its brokers that are down.
type OverviewHealth struct {
	Violations, Brokers, BrokersDown int
}

// healthWords says what is wrong, in both languages; ok when nothing is.
func healthWords(h OverviewHealth) (ws []words, ok bool) {
	if h.BrokersDown > 0 {
		en := fmt.Sprintf("%d brokers down", h.BrokersDown)
		if h.BrokersDown == 1 {
			en = "1 broker down"
		}
		ws = append(ws, words{en, fmt.Sprintf("%d 个 broker 宕机", h.BrokersDown)})
	}
	if h.Violations > 0 {
		en := fmt.Sprintf("%d invariant violations", h.Violations)
		if h.Violations == 1 {
			en = "1 invariant violation"
		}
		ws = append(ws, words{en, fmt.Sprintf("%d 处不变量被违反", h.Violations)})
	}
	return ws, len(ws) == 0
}

// agoText says how long ago t was, to the instructor, rounded for reading:
// seconds for the last minute, as a room's activity is read.
func agoText(now, t time.Time) (en, zh string) {
	d := now.Sub(t)
	switch {
	case t.IsZero():
		return "never", "从未"
	case d < time.Second:
		return "just now", "刚刚"
	case d < time.Minute:
		s := int(d / time.Second)
		return fmt.Sprintf("%d s ago", s), fmt.Sprintf("%d 秒前", s)
	case d < time.Hour:
		m := int(d / time.Minute)
		return fmt.Sprintf("%d min ago", m), fmt.Sprintf("%d 分钟前", m)
	default:
		h := int(d / time.Hour)
		return fmt.Sprintf("%d h ago", h), fmt.Sprintf("%d 小时前", h)
	}
}

// watching is the viewer a live page's console is drawn for: nil when
// they drive the cluster, else who they are.
func watching(info LiveInfo) *LiveInfo {
	if info.CanDrive {
		return nil
	}
	return &info
}

// watchPlaceholder is a watching viewer's prompt, in both languages.
func watchPlaceholder(info LiveInfo) words {
	if info.OwnerName == "" {
		return words{"watching: only the instructor runs commands here", "观看中：只有讲师能在这里执行命令"}
	}
	return words{"watching: only " + info.OwnerName + " runs commands here", "观看中：只有 " + info.OwnerName + " 能在这里执行命令"}
}
