package server

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/loglab/loglab/lessons"
)

// apiLessons lists the embedded lessons in their order.
func (s *Server) apiLessons(c echo.Context) error {
	out, err := lessons.Catalogue()
	if err != nil {
		return err // a lesson that fails to load is a build's bug: 500
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
