package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// instructorTokenFile keeps the instructor's token in the data directory,
// readable by its owner only: a restarted server keeps the same token, so
// the instructor's open page and bookmarked URL still drive the room.
const instructorTokenFile = "loglab-instructor.token"

// InstructorTokenIn returns the instructor's token kept in dataDir, making
// and keeping one the first time; with no data directory, a fresh one.
func InstructorTokenIn(dataDir string) (string, error) {
	if dataDir == "" {
		return newToken(), nil
	}
	path := filepath.Join(dataDir, instructorTokenFile)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		token := strings.TrimSpace(string(data))
		if token == "" || strings.ContainsAny(token, " \t\r\n") {
			return "", fmt.Errorf("%s is damaged (it should hold one token): delete it and a new token is made", path)
		}
		return token, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return "", err
	}
	token := newToken()
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		return "", err
	}
	return token, nil
}
