package log

import "path"

// Location is where a fetch's bytes lie in one segment file, so that a
// server can hand the region to sendfile(2) instead of copying it: Kafka's
// FileRecords.slice, which the network layer then writes with
// FileChannel.transferTo.
type Location struct {
	// Path is the segment's .log file, relative to the log's storage.FS;
	// empty when there is nothing to read (FirstBatchOffset then says
	// where the next batch will start).
	Path string
	// Position and Length are the byte region of whole batches.
	Position, Length int64
	// FirstBatchOffset is the base offset of the first batch in the
	// region; it may be below the offset asked for.
	FirstBatchOffset int64
}

// Locate is Read without touching the bytes: the offset index lookup and
// the scan of batch headers a Kafka fetch does, answering the segment file
// and region holding whole batches from the one holding from, at most
// maxBytes of them (but at least one), entirely below maxOffset.
func (l *Log) Locate(from, maxBytes, maxOffset int64) (Location, error) {
	fd, err := l.Read(from, maxBytes, maxOffset)
	if err != nil {
		return Location{}, err
	}
	loc := Location{FirstBatchOffset: fd.FirstBatchOffset}
	if len(fd.Slices) == 0 || fd.Bytes == 0 {
		return loc, nil
	}
	sl := fd.Slices[0]
	for _, s := range l.segments {
		if s.log == sl.File {
			loc.Path = path.Join(s.dir, FileName(s.base, LogSuffix))
			loc.Position, loc.Length = sl.Pos, sl.Len
			return loc, nil
		}
	}
	return loc, nil
}
