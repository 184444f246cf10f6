package server

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/loglab/loglab/lessons"
)

// catalogueEntry is one lesson in GET /api/lessons, the shape the browser
// lab's loglab.lessons() gives: what a live page needs to offer lessons
// without loading the WASM engine.
type catalogueEntry struct {
	ID      string       `json:"id"`
	Order   int          `json:"order"`
	Level   string       `json:"level"`
	Minutes int          `json:"minutes"`
	Title   lessons.HTML `json:"title"`
	Steps   int          `json:"steps"`
}

// apiLessons lists the embedded lessons in their order.
func (s *Server) apiLessons(c echo.Context) error {
	all, err := lessons.All()
	if err != nil {
		return err // a lesson that fails to load is a build's bug: 500
	}
	out := make([]catalogueEntry, 0, len(all))
	for _, l := range all {
		r := lessons.Render(l)
		out = append(out, catalogueEntry{ID: r.ID, Order: r.Order, Level: r.Level, Minutes: r.Minutes, Title: r.Title, Steps: len(r.Steps)})
	}
	return c.JSON(http.StatusOK, out)
}

// apiLesson is one lesson's prose as the player shows it (lessons.Render:
// no right answers in it).
func (s *Server) apiLesson(c echo.Context) error {
	l, err := lessons.Find(c.Param("id"))
	if err != nil {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("no lesson %.80q: GET /api/lessons lists them", c.Param("id")))
	}
	return c.JSON(http.StatusOK, lessons.Render(l))
}
