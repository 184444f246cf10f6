package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loglab/loglab/engine/dumplog"
)

// dumpLog prints segment files (.log, .index, .timeindex, producer state
// .snapshot, .txnindex) as Kafka's
// kafka-dump-log.sh does, so files loglab writes and files a Kafka broker
// wrote can be read side by side. What Kafka prints to stderr (index
// mismatches, non-consecutive offsets, unknown files) goes to stderr here
// too. It exits 1 when a file could not be read, and goes on with the others.
func dumpLog(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dump-log", flag.ContinueOnError)
	fs.SetOutput(stderr)
	printData := fs.Bool("print-data-log", false, "print each record with its key and payload (implies -deep-iteration)")
	deep := fs.Bool("deep-iteration", false, "print a line per record, without key and payload")
	offsetsDecoder := fs.Bool("offsets-decoder", false, "decode records as __consumer_offsets records (offset commits, group metadata); implies -print-data-log")
	txnDecoder := fs.Bool("transaction-log-decoder", false, "decode records as __transaction_state records (transaction metadata); implies -print-data-log")
	verify := fs.Bool("verify-index-only", false, "check indexes against their segment without printing their entries")
	files := fs.String("files", "", "comma-separated `FILES` to dump, as kafka-dump-log's --files (FILE arguments work too)")
	if code, done := parseFlags(fs, args, true); done {
		return code
	}
	var names []string
	if *files != "" {
		names = strings.Split(*files, ",")
	}
	names = append(names, fs.Args()...)
	if len(names) == 0 {
		fmt.Fprintf(stderr, "loglab dump-log: expected at least one FILE\n\n%s", usage)
		return 2
	}

	out := bufio.NewWriter(stdout)
	var opened []*os.File
	opts := dumplog.Options{
		PrintDataLog:          *printData || *offsetsDecoder || *txnDecoder,
		OffsetsDecoder:        *offsetsDecoder,
		TransactionLogDecoder: *txnDecoder,
		DeepIteration:         *deep,
		VerifyIndexOnly:       *verify,
		Err:                   flushFirst{out, stderr},
		// An index is checked against the .log next to it, as Kafka does.
		Open: func(name string) (io.ReaderAt, int64, error) {
			f, size, err := openFile(name)
			if err != nil {
				return nil, 0, err
			}
			opened = append(opened, f)
			return f, size, nil
		},
	}
	code := 0
	for _, name := range names {
		err := func() error {
			f, size, err := openFile(name)
			if err != nil {
				return err
			}
			defer f.Close()
			defer func() {
				for _, o := range opened {
					o.Close()
				}
				opened = opened[:0]
			}()
			return dumplog.Dump(out, name, f, size, opts)
		}()
		if err != nil {
			out.Flush()
			fmt.Fprintf(stderr, "loglab dump-log: %v\n", err)
			code = 1
		}
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "loglab dump-log: %v\n", err)
		return 1
	}
	return code
}

// openFile opens a regular file for reading and returns its size.
func openFile(name string) (*os.File, int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err == nil && st.IsDir() {
		err = fmt.Errorf("%s: %w", name, errors.New("is a directory"))
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// flushFirst writes to w after flushing out, so that stderr reports come
// after the stdout lines they follow.
type flushFirst struct {
	out *bufio.Writer
	w   io.Writer
}

func (f flushFirst) Write(p []byte) (int, error) {
	if err := f.out.Flush(); err != nil {
		return 0, err
	}
	return f.w.Write(p)
}
