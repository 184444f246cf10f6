package view

// CommandHelp is one console command as a console shows it while the
// learner types: its name (one or two words), its usage line and summary
// exactly as `help` prints them, and the option names its usage mentions,
// for completion. engine/lab fills it from its command table.
type CommandHelp struct {
	Name    string   `json:"name"`
	Usage   string   `json:"usage"`
	Summary string   `json:"summary"`
	Options []string `json:"options,omitempty"`
}
