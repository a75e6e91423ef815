//go:build integration

package framework

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Document is one YAML document of a manifest file.
type Document struct {
	File   string
	Index  int
	Object *unstructured.Unstructured
}

func (d Document) String() string {
	return fmt.Sprintf("%s document %d (%s %s)", d.File, d.Index, d.Object.GetKind(), client.ObjectKeyFromObject(d.Object))
}

// ReadManifests reads every .yaml file under dir (recursively, in path order) and
// returns its documents. Files that hold no Kubernetes object (empty documents) are
// skipped.
func ReadManifests(dir string) ([]Document, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walking %s: %w", dir, err)
	}
	sort.Strings(files)
	var docs []Document
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for i := 0; ; i++ {
			raw, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("reading %s document %d: %w", f, i, err)
			}
			if len(bytes.TrimSpace(raw)) == 0 {
				continue
			}
			obj := &unstructured.Unstructured{}
			if err := utilyaml.Unmarshal(raw, &obj.Object); err != nil {
				return nil, fmt.Errorf("parsing %s document %d: %w", f, i, err)
			}
			if len(obj.Object) == 0 {
				continue
			}
			docs = append(docs, Document{File: f, Index: i, Object: obj})
		}
	}
	return docs, nil
}

// Apply creates the object, or updates it when it exists (a later document with
// the same kind and name replaces the earlier one, as `kubectl apply` would). When
// the document carries a status and the kind has a status subresource, the status
// is written too, the way a provider controller would.
func Apply(ctx context.Context, c client.Client, obj *unstructured.Unstructured) error {
	status, hasStatus, _ := unstructured.NestedFieldCopy(obj.Object, "status")
	desired := obj.DeepCopy()
	err := c.Create(ctx, desired)
	if apierrors.IsAlreadyExists(err) {
		existing := &unstructured.Unstructured{}
		existing.SetGroupVersionKind(obj.GroupVersionKind())
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), existing); err != nil {
			return err
		}
		desired = obj.DeepCopy()
		desired.SetResourceVersion(existing.GetResourceVersion())
		err = c.Update(ctx, desired)
	}
	if err != nil {
		return err
	}
	if hasStatus {
		if err := unstructured.SetNestedField(desired.Object, status, "status"); err != nil {
			return err
		}
		if err := c.Status().Update(ctx, desired); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("writing status: %w", err)
		}
	}
	return nil
}
