// Package lessons holds the guided failure lessons: plain-text files a
// trainer writes (format in README.md), embedded so the browser lab (WASM)
// and the server carry them, and played by `go test ./lessons` so no lesson
// can claim something the engine does not do.
package lessons

// Text is one piece of prose in both languages the lessons are written in;
// a lesson missing either fails to load, so no learner meets a blank.
type Text struct{ En, Zh string }

// Lesson is one parsed .lesson file.
type Lesson struct {
	File    string
	ID      string
	Order   int // from `order:`, else the file name orders it
	Level   string
	Minutes int
	Title   Text
	Goals   []Text // what the learner will be able to explain
	Steps   []Step
	// Native: `mode: native`, a lesson that needs the workshop server's
	// own commands (`>~` lines): the browser lab cannot play it.
	Native bool
	// Module is the catalogue's module the lesson belongs to (`module:`,
	// a Module's id, modules.go); After the ids of the lessons a learner
	// should have played first (`after:`), each earlier in the catalogue
	// (AfterLine: where, for errors). All() checks both.
	Module    string
	After     []string
	AfterLine int
}

// Step is one screen of a lesson. A goal step (Goal true) asks the learner
// to make GoalCheck hold; Solution is how the test proves it can.
type Step struct {
	Line int // where its "==" header is, for errors
	Name string
	Goal bool
	Say  []Text // paragraphs of Markdown
	// Focus is the element the step is about, a form of the focus
	// vocabulary (focus.go), e.g. "partition orders/0 replica 2 hw";
	// FocusState what it must show after the step (FocusLine: where).
	Focus      string
	FocusState string
	FocusLine  int
	Hints      []Text
	Commands   []Command
	Predict    *Predict
	Check      *GoalCheck
	Solution   []string
	// Values are the engine values its say, hint and why lines state
	// (`{CHECK ARGS = VALUE}`, values.go), English and Chinese.
	Values []Value
	// Asides are settings (NAME=VALUE) the narration names although the
	// lab does not run with them at this step: a Kafka default, an
	// alternative, what another producer would need (`aside:` lines).
	// TestNarrationSettingsMatchTheCommands requires every other
	// NAME=VALUE the narration names to agree with the commands.
	Asides    []string
	AsideLine int
}

// Command is a lab command with the transcript it must print. OutFrom and
// OutTo are the 0-based source lines of that output [OutFrom, OutTo), which
// -rewrite replaces.
//
// A Live command (`>~ COMMAND`, native lessons only) is one of the
// server's native commands, such as `bench fetch`: its output varies from
// run to run, so it has no Want; the server runs it when the step is
// entered, and `go test ./lessons` (a lab without native commands) skips
// it. It must leave the cluster as it was: replays skip it too.
type Command struct {
	Line    int
	Text    string
	Want    string
	OutFrom int
	OutTo   int
	Live    bool
}

// Predict is a question whose right answer is not written down: the named
// check computes it from engine state after the step's commands ran, and
// it must equal exactly one choice's value.
type Predict struct {
	Line     int
	Check    string
	Args     []string
	Question Text
	Choices  []Choice
}

// Choice is one answer, with why it is right or wrong.
type Choice struct {
	Line  int
	Value string
	Text  Text
	Why   Text
}

// GoalCheck is a goal's predicate: the named check's value must equal Want.
type GoalCheck struct {
	Line  int
	Check string
	Args  []string
	Want  string
}
