package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// manifestExtensions are the files a directory contributes; a file named
// explicitly is read whatever its name.
var manifestExtensions = []string{".yaml", ".yml", ".json"}

// expandPaths turns the -f arguments into the list of files to read: a file as is,
// a directory as every manifest under it, recursively, in sorted path order (the
// order kubectl apply -R would use), so that a run is reproducible.
func expandPaths(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, errors.New("no input: pass at least one -f FILE or -f DIRECTORY")
	}
	var files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && hasManifestExtension(path) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading directory %s: %w", p, err)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("reading directory %s: no manifests (%s) found", p, strings.Join(manifestExtensions, ", "))
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	return files, nil
}

func hasManifestExtension(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	for _, e := range manifestExtensions {
		if ext == e {
			return true
		}
	}
	return false
}

// splitDocuments splits a multi-document YAML (or a single JSON) file into its
// documents, dropping the ones that hold nothing but comments or whitespace.
func splitDocuments(data []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if isBlankDocument(raw) {
			continue
		}
		docs = append(docs, raw)
	}
}

// isBlankDocument reports whether a document has only comments and whitespace.
func isBlankDocument(raw []byte) bool {
	for _, line := range bytes.Split(raw, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' || bytes.Equal(t, []byte("---")) {
			continue
		}
		return false
	}
	return true
}
