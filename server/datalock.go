package server

// lockFile is the data directory's lock, held by the running server for
// as long as it runs, as a Kafka broker holds `.lock` in each of its log
// directories: two servers writing the same segment files would corrupt
// them, and a second one resuming the first one's cluster is never what
// was meant. The file holds the holder's pid, so the refusal can name it.
// The kernel drops the lock when the process ends, kill -9 included, so
// a stale file never keeps a restart out.
const lockFile = ".lock"
