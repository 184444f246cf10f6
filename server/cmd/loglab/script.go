package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/engine/storage/osfs"
)

// script runs a lab script and prints its transcript. It exits 1 when a
// command failed, so shell scripts and CI notice; the transcript still shows
// every command, the failed ones with their error.
//
// With -data-dir the cluster's partitions are written there as real Kafka
// segment files (DIR/<topic>-<partition>/...), for kafka-dump-log or any
// other tool to read.
func script(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("script", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", "", "write the topics' segment files under this (new or empty) directory")
	if code, done := parseFlags(fs, args, true); done {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "loglab script: expected one FILE (or - for stdin), got %d arguments\n\n%s", fs.NArg(), usage)
		return 2
	}
	in := stdin
	if name := fs.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "loglab script: %v\n", err)
			return 1
		}
		defer f.Close()
		in = f
	}
	l := lab.New()
	if *dataDir != "" {
		// A fresh directory keeps the transcript the same as without
		// -data-dir: existing segments would be recovered into the topics.
		if entries, err := os.ReadDir(*dataDir); err == nil && len(entries) > 0 {
			fmt.Fprintf(stderr, "loglab script: -data-dir %s is not empty; give a new or empty directory\n", *dataDir)
			return 1
		}
		if err := os.MkdirAll(*dataDir, 0o755); err != nil {
			fmt.Fprintf(stderr, "loglab script: %v\n", err)
			return 1
		}
		// The controllers' files go in the directory itself (controller-N/):
		// the lab's metadata directory is a path on its storage.
		l = lab.NewWithStorage(osfs.New(*dataDir), ".")
	}
	failed, err := l.RunScript(in, stdout)
	if closeErr := l.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		fmt.Fprintf(stderr, "loglab script: %v\n", err)
		return 1
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "loglab script: %d command(s) failed\n", failed)
		return 1
	}
	return 0
}
