package cluster

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/loglab/loglab/engine/protocol"
	"github.com/loglab/loglab/engine/storage"
)

// AckedFile keeps, at the top of a cluster's real storage (a server's
// -data-dir), the invariant checker's record of what producers were told:
// without it a restarted server would check the records written since the
// restart only, and data lost across the restart would pass unnoticed.
//
// The format is text, one record per line, appended as acknowledgements
// arrive:
//
//	loglab-acked 1
//	a orders 0 41 -1 1503000000 b<base64 key> b<base64 value>
//	f orders 0 -1 -1 1504000000 - b<base64 value>
//
// Fields: a (acknowledged) or f (failed, perhaps written all the same),
// topic, partition, offset (-1 for a failed one), acks (-1 for all), the
// virtual time of the acknowledgement in nanoseconds (of the run that
// wrote it: the clock starts again at zero on every start), key and value:
// "-" for none, else "b" and the bytes in standard base64. A last line
// without its newline is a write torn by a crash, and is ignored.
const AckedFile = "loglab-acked"

const ackedFileHeader = "loglab-acked 1\n"

// openAckedFile loads the record kept by an earlier run on fs, or starts
// one, and keeps the file open for appending.
func (c *Cluster) openAckedFile() error {
	f, err := c.fs.Open(AckedFile)
	if errors.Is(err, storage.ErrNotExist) {
		if f, err = c.fs.Create(AckedFile); err != nil {
			return err
		}
		if _, err := f.Write([]byte(ackedFileHeader)); err != nil {
			f.Close()
			return err
		}
		c.ackFile = f
		return nil
	}
	if err != nil {
		return err
	}
	raw := make([]byte, f.Size())
	if err := storage.ReadFull(f, raw, 0); err != nil {
		f.Close()
		return err
	}
	acked, failed, err := parseAckedFile(raw)
	if err != nil {
		f.Close()
		return fmt.Errorf("%s is damaged: %w; remove it to start the record of acknowledged data afresh (losses across earlier restarts then go unchecked)", AckedFile, err)
	}
	if torn := int64(len(raw) - bytes.LastIndexByte(raw, '\n') - 1); torn > 0 {
		if err := f.Truncate(f.Size() - torn); err != nil {
			f.Close()
			return err
		}
	}
	c.acked, c.failed, c.ackFile = acked, failed, f
	return nil
}

func parseAckedFile(raw []byte) (acked, failed []AckedRecord, err error) {
	text := string(raw)
	if !strings.HasPrefix(text, ackedFileHeader) {
		return nil, nil, fmt.Errorf("it does not start with %q", strings.TrimSpace(ackedFileHeader))
	}
	lines := strings.Split(text[len(ackedFileHeader):], "\n")
	lines = lines[:len(lines)-1] // the last is empty, or torn
	for i, line := range lines {
		a, kind, err := parseAckedLine(line)
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: %w", i+2, err)
		}
		if kind == "a" {
			acked = append(acked, a)
		} else {
			failed = append(failed, a)
		}
	}
	return acked, failed, nil
}

func parseAckedLine(line string) (AckedRecord, string, error) {
	f := strings.Split(line, " ")
	if len(f) != 8 || (f[0] != "a" && f[0] != "f") {
		return AckedRecord{}, "", fmt.Errorf("%q is not a record", line)
	}
	part, err1 := strconv.ParseInt(f[2], 10, 32)
	offset, err2 := strconv.ParseInt(f[3], 10, 64)
	acks, err3 := strconv.ParseInt(f[4], 10, 16)
	at, err4 := strconv.ParseInt(f[5], 10, 64)
	key, err5 := decodeAckedBytes(f[6])
	value, err6 := decodeAckedBytes(f[7])
	if err := errors.Join(err1, err2, err3, err4, err5, err6); err != nil {
		return AckedRecord{}, "", fmt.Errorf("%q: %w", line, err)
	}
	return AckedRecord{TP: protocol.TopicPartition{Topic: f[1], Partition: int32(part)}, Offset: offset, Key: key, Value: value,
		Acks: int16(acks), At: time.Duration(at)}, f[0], nil
}

func encodeAckedBytes(b []byte) string {
	if b == nil {
		return "-"
	}
	return "b" + base64.StdEncoding.EncodeToString(b)
}

func decodeAckedBytes(s string) ([]byte, error) {
	if s == "-" {
		return nil, nil
	}
	enc, ok := strings.CutPrefix(s, "b")
	if !ok {
		return nil, fmt.Errorf("%q is neither - nor b<base64>", s)
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if b == nil {
		b = []byte{}
	}
	return b, err
}

// appendAcked adds records to the file, when there is one.
func (c *Cluster) appendAcked(kind string, recs []AckedRecord) {
	if c.ackFile == nil || len(recs) == 0 {
		return
	}
	var b strings.Builder
	for _, a := range recs {
		fmt.Fprintf(&b, "%s %s %d %d %d %d %s %s\n", kind, a.TP.Topic, a.TP.Partition, a.Offset, a.Acks, int64(a.At),
			encodeAckedBytes(a.Key), encodeAckedBytes(a.Value))
	}
	if _, err := c.ackFile.Write([]byte(b.String())); err != nil {
		c.event(fmt.Sprintf("cannot record acknowledged records in %s: %v", AckedFile, err))
	}
}
