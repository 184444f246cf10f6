package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loglab/loglab/engine/lab"
	"github.com/loglab/loglab/web"
)

// TestWriteTransactionPage writes a page with a live transaction to
// $LOGLAB_SHOT/page.html (the stylesheet inlined) for a screenshot:
//
//	LOGLAB_SHOT=/tmp/shot go test ./web -run TestWriteTransactionPage
//	chromium --headless --screenshot=/tmp/shot/txn.png --window-size=1400,1000 file:///tmp/shot/page.html
//
// It is a tool for looking at the drawing, skipped without LOGLAB_SHOT.
func TestWriteTransactionPage(t *testing.T) {
	dir := os.Getenv("LOGLAB_SHOT")
	if dir == "" {
		t.Skip("LOGLAB_SHOT names no directory")
	}
	l := lab.New()
	defer l.Close()
	for _, cmd := range []string{
		"cluster brokers=3 seed=7",
		"topic create orders partitions=2 rf=3",
		"producer create p1 transactional.id=tx-orders",
		"producer create p2",
		"producer create p3 transactional.id=tx-zombie",
		"txn begin p1",
		"produce orders value=a partition=0 producer=p1",
		"produce orders value=b partition=1 producer=p1",
		"txn commit p1",
		"txn begin p1",
		"produce orders value=c partition=0 producer=p1",
		"produce orders value=d partition=1 producer=p1",
		"produce orders value=e partition=0 producer=p2",
		"txn begin p3",
		"produce orders value=z partition=1 producer=p3",
		"producer crash p3",
		"tick 2s",
	} {
		if out, err := l.Run(cmd); err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, out)
		}
	}
	html, err := web.RenderString(context.Background(), web.LivePage(l.View(), nil, web.LiveInfo{ClusterID: "live", CanDrive: true, Instructor: true}))
	if err != nil {
		t.Fatal(err)
	}
	css, err := os.ReadFile("../static/style.css")
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Replace(html, "</head>", "<style>"+string(css)+"</style></head>", 1)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "page.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html, `data-focus="txn tx-orders"`) {
		t.Error("the page draws no transaction")
	}
}
