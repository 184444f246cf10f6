package main

import (
	"strings"
	"testing"
)

// The load check's sizes are checked before a server starts: a misuse
// exits 2 with the usage, as every other command's does. (The run itself
// is tested in server/loadtest.)
func TestLoadtestRefusesBadSizes(t *testing.T) {
	for _, args := range [][]string{
		{"loadtest", "-nope"},
		{"loadtest", "extra"},
		{"loadtest", "-duration", "0s"},
		{"loadtest", "-clients", "0"},
		{"loadtest", "-clients", "5", "-participants", "6"},
		{"loadtest", "-participants", "-1"},
	} {
		code, stdout, stderr := runCLI(t, "", args...)
		if code != 2 || !strings.Contains(stderr, "usage: loglab") || stdout != "" {
			t.Errorf("loglab %v: exit %d, stdout %q, stderr:\n%s", args, code, stdout, stderr)
		}
	}
}
