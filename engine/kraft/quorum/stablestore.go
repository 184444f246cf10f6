package quorum

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sync"
	"unicode/utf8"

	"github.com/hashicorp/raft"

	"github.com/loglab/loglab/engine/storage"
)

// quorumStateFile is the controller's durable raft state, named after
// Kafka's quorum-state file.
const quorumStateFile = "quorum-state"

// errKeyNotFound is the error raft expects for a missing key: it compares
// the text, "not found".
var errKeyNotFound = errors.New("not found")

// stateStore is a raft.StableStore in one small JSON file, rewritten through
// a temporary file and a rename (and synced) on every change, as Kafka
// writes quorum-state. Raft keeps three keys there: CurrentTerm and
// LastVoteTerm (numbers) and LastVoteCand (the address voted for):
//
//	{"data_version":0,"numbers":{"CurrentTerm":3,"LastVoteTerm":3},
//	 "values":{"LastVoteCand":"controller-2"}}
//
// Values that are not UTF-8 text go to "binary", base64-encoded. Kafka's
// file holds leaderId, leaderEpoch, votedId and the voters instead.
type stateStore struct {
	mu   sync.Mutex
	fs   storage.FS
	name string
	st   stateFile
}

type stateFile struct {
	DataVersion int               `json:"data_version"`
	Numbers     map[string]uint64 `json:"numbers"`
	Values      map[string]string `json:"values,omitempty"`
	Binary      map[string]string `json:"binary,omitempty"`
}

var _ raft.StableStore = (*stateStore)(nil)

// openStateStore reads dir/quorum-state, or starts empty.
func openStateStore(fs storage.FS, dir string) (*stateStore, error) {
	s := &stateStore{fs: fs, name: path.Join(dir, quorumStateFile), st: stateFile{Numbers: map[string]uint64{}}}
	if err := fs.MkdirAll(dir); err != nil {
		return nil, err
	}
	raw, err := storage.ReadFile(fs, s.name)
	if errors.Is(err, storage.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &s.st); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v): restore it from a backup, or start on an empty data directory", s.name, err)
	}
	if s.st.Numbers == nil {
		s.st.Numbers = map[string]uint64{}
	}
	return s, nil
}

func (s *stateStore) Set(key, val []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := string(key)
	delete(s.st.Values, k)
	delete(s.st.Binary, k)
	if utf8.Valid(val) {
		if s.st.Values == nil {
			s.st.Values = map[string]string{}
		}
		s.st.Values[k] = string(val)
	} else {
		if s.st.Binary == nil {
			s.st.Binary = map[string]string{}
		}
		s.st.Binary[k] = base64.StdEncoding.EncodeToString(val)
	}
	return s.write()
}

func (s *stateStore) Get(key []byte) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := string(key)
	if v, ok := s.st.Values[k]; ok {
		return []byte(v), nil
	}
	if v, ok := s.st.Binary[k]; ok {
		return base64.StdEncoding.DecodeString(v)
	}
	return nil, errKeyNotFound
}

func (s *stateStore) SetUint64(key []byte, val uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.Numbers[string(key)] = val
	return s.write()
}

// GetUint64 returns 0 for a missing key, as raft's InmemStore does.
func (s *stateStore) GetUint64(key []byte) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.Numbers[string(key)], nil
}

func (s *stateStore) write() error {
	raw, err := json.Marshal(s.st)
	if err != nil {
		return err
	}
	tmp := s.name + ".tmp"
	f, err := s.fs.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(raw, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return s.fs.Rename(tmp, s.name)
}
