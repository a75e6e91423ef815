package manifest

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Source says where a document came from, so that every error a person sees points
// at the file and the document to fix.
type Source struct {
	// File is the path as given on the command line (or found under a directory).
	File string
	// Document is the 1-based position of the document among the non-empty
	// documents of File, the way a person counts objects in a file.
	Document int
}

func (s Source) String() string {
	if s.Document == 0 {
		return s.File
	}
	return fmt.Sprintf("%s document %d", s.File, s.Document)
}

// Error is a problem with one document: it names the file, the document, the object
// when it could be identified, and what is wrong.
type Error struct {
	Source Source
	// Object is "Kind name" or "Kind namespace/name"; empty when the document could
	// not be read far enough to know.
	Object string
	Err    error
}

func (e *Error) Error() string {
	if e.Object == "" {
		return fmt.Sprintf("%s: %v", e.Source, e.Err)
	}
	return fmt.Sprintf("%s (%s): %v", e.Source, e.Object, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// fieldErrors turns a field.ErrorList into one error whose text lists every
// problem; a single problem reads exactly like the API server's message.
func fieldErrors(errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return &FieldErrors{List: errs, text: strings.Join(msgs, "; ")}
}

// FieldErrors carries the validation errors of one object, so that tests and callers
// can look at the paths instead of parsing text.
type FieldErrors struct {
	List field.ErrorList
	text string
}

func (e *FieldErrors) Error() string { return e.text }
