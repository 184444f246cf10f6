package lessons

import (
	"strings"
	"testing"
)

// lessonWith is a minimal lesson with front matter lines of its own.
func lessonWith(t *testing.T, file, id, extra string) *Lesson {
	t.Helper()
	src := "id: " + id + "\nlevel: beginner\nminutes: 5\n" + extra + "title.en: T\ntitle.zh: T 中文\ngoal.en: G\ngoal.zh: G 中文\n" + step
	l, err := Parse(file, src)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A module or a prerequisite a trainer mistypes, and a prerequisite that
// comes later in the catalogue, fail the load with the file and line.
func TestCatalogueModulesAndPrerequisitesAreChecked(t *testing.T) {
	if _, err := Parse("x.lesson", "id: t\nmodule: storage\nmodule: kraft\n"); err == nil || !strings.Contains(err.Error(), "x.lesson:3: a second module:") {
		t.Errorf("two modules: %v", err)
	}
	_, err := Parse("x.lesson", "id: t\nlevel: beginner\nmodule: replicas\n")
	if err == nil || !strings.Contains(err.Error(), `x.lesson:3: module: is one of storage, producing, replication`) || !strings.Contains(err.Error(), `"replicas"`) {
		t.Errorf("an unknown module: %v", err)
	}
	if _, err := Parse("x.lesson", "id: t\nafter: a, b a\n"); err == nil || !strings.Contains(err.Error(), `x.lesson:2: after: names "a" twice`) {
		t.Errorf("a prerequisite named twice: %v", err)
	}
	if _, err := Parse("x.lesson", "id: t\nafter: a\nafter: b\n"); err == nil || !strings.Contains(err.Error(), "x.lesson:3: one after: line (the one on line 2)") {
		t.Errorf("two after: lines: %v", err)
	}

	first := lessonWith(t, "01-a.lesson", "a", "module: storage\n")
	second := lessonWith(t, "02-b.lesson", "b", "module: producing\nafter: a,  c\n")
	if got := second.After; len(got) != 2 || got[0] != "a" || got[1] != "c" {
		t.Fatalf("after: a,  c read as %q", got)
	}
	third := lessonWith(t, "03-c.lesson", "c", "module: storage\n")
	cases := []struct {
		name string
		all  []*Lesson
		want string // "" for none
	}{
		{"in order", []*Lesson{first, third, lessonWith(t, "04-d.lesson", "d", "module: kraft\nafter: a c\n")}, ""},
		{"a later prerequisite", []*Lesson{first, second, third}, `02-b.lesson:5: after: "c" is lesson 3, which comes after this one (2) in the catalogue`},
		{"an unknown prerequisite", []*Lesson{first, second}, `02-b.lesson:5: after: no lesson has the id "c"`},
		{"itself", []*Lesson{first, lessonWith(t, "02-e.lesson", "e", "module: storage\nafter: e\n")}, `02-e.lesson:5: after: "e" is this lesson itself`},
		{"no module", []*Lesson{first, lessonWith(t, "02-f.lesson", "f", "")}, "02-f.lesson:1: the lesson has no module: (one of storage, producing"},
	}
	for _, c := range cases {
		err := checkCatalogue(c.all)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// Every module of the catalogue holds a lesson, and a module's name, which
// the catalogue shows as a heading, uses the lessons' Chinese vocabulary.
func TestEveryModuleHasLessonsAndFollowsTheGlossary(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, l := range all {
		count[l.Module]++
	}
	g, err := LoadGlossary()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range Modules() {
		if count[m.ID] == 0 {
			t.Errorf("module %s holds no lesson: drop it, or give it one", m.ID)
		}
		if m.Name.En == "" || m.Name.Zh == "" {
			t.Errorf("module %s has no name in both languages: %+v", m.ID, m.Name)
		}
		for _, v := range g.Violations(m.Name.Zh) {
			t.Errorf("module %s: %q: %v", m.ID, m.Name.Zh, v)
		}
	}
	// The native lessons are the native module's, and only they.
	for _, l := range all {
		if l.Native != (l.Module == "native") {
			t.Errorf("%s: mode native is %v but its module is %s", l.File, l.Native, l.Module)
		}
	}
}

// A trainer who runs the modules in the catalogue's order never meets a
// lesson before one it builds on: no prerequisite is in a later module.
func TestPrerequisitesComeInEarlierModules(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	rank := map[string]int{}
	for i, m := range Modules() {
		rank[m.ID] = i
	}
	byID := map[string]*Lesson{}
	for _, l := range all {
		byID[l.ID] = l
	}
	for _, l := range all {
		for _, id := range l.After {
			if p := byID[id]; rank[p.Module] > rank[l.Module] {
				t.Errorf("%s:%d: lesson %d (module %s) comes after lesson %d of module %s, a later module", l.File, l.AfterLine, l.Order, l.Module, p.Order, p.Module)
			}
		}
	}
}
