package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	kjson "sigs.k8s.io/json"
)

// decodeStrict decodes the JSON form of a document into obj the way the API server
// does: field names match case-sensitively, and unknown or duplicate fields are
// errors that carry their full path (sigs.k8s.io/json is the API server's decoder).
// When a value has the wrong shape or an unparsable quantity, the error names the
// path of that value, which encoding/json alone does not do.
func decodeStrict(data []byte, obj any) error {
	strictErrs, err := kjson.UnmarshalStrict(data, obj)
	if err != nil {
		return explainDecodeError(data, obj, err)
	}
	if len(strictErrs) > 0 {
		msgs := make([]string, len(strictErrs))
		for i, e := range strictErrs {
			var fe kjson.FieldError
			if errors.As(e, &fe) {
				kind, _, _ := strings.Cut(e.Error(), " \"")
				msgs[i] = fe.FieldPath() + ": " + kind
			} else {
				msgs[i] = e.Error()
			}
		}
		sort.Strings(msgs)
		return errors.New(strings.Join(msgs, "; "))
	}
	return nil
}

// explainDecodeError turns a decoding error into one that names the path of the
// value at fault, falling back to the decoder's own message.
func explainDecodeError(data []byte, obj any, err error) error {
	var generic any
	if gerr := json.Unmarshal(data, &generic); gerr == nil {
		if path, leafErr := firstBadValue(reflect.TypeOf(obj), generic, ""); path != "" {
			return fmt.Errorf("%s: Invalid value: %s: %v", path, shortJSON(generic, path), leafErr)
		}
	}
	return err
}

// firstBadValue finds the deepest value under v that cannot be decoded into its Go
// type t, and returns its path and the decoder's complaint about it. It only runs
// after decoding failed, so its cost does not matter.
func firstBadValue(t reflect.Type, v any, path string) (string, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if obj, ok := v.(map[string]any); ok && !selfDecoding(t) {
			fields := jsonFields(t)
			for _, k := range sortedKeys(obj) {
				if ft, ok := fields[k]; ok {
					if p, err := firstBadValue(ft, obj[k], joinPath(path, k)); p != "" {
						return p, err
					}
				}
			}
		}
	case reflect.Slice, reflect.Array:
		if list, ok := v.([]any); ok {
			for i, item := range list {
				if p, err := firstBadValue(t.Elem(), item, fmt.Sprintf("%s[%d]", path, i)); p != "" {
					return p, err
				}
			}
		}
	case reflect.Map:
		if obj, ok := v.(map[string]any); ok {
			for _, k := range sortedKeys(obj) {
				if p, err := firstBadValue(t.Elem(), obj[k], fmt.Sprintf("%s[%s]", path, k)); p != "" {
					return p, err
				}
			}
		}
	}
	// No child is at fault: try this value on its own.
	raw, err := json.Marshal(v)
	if err != nil {
		return "", nil
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, reflect.New(t).Interface()); err != nil {
		if path == "" {
			return "", nil
		}
		return path, simplifyDecodeError(err, t)
	}
	return "", nil
}

// simplifyDecodeError replaces encoding/json's Go-centric type errors ("cannot
// unmarshal string into Go struct field ResourceGroup.spec... of type
// []v1beta2.FlavorQuotas") with what a manifest author can act on.
func simplifyDecodeError(err error, t reflect.Type) error {
	if strings.Contains(err.Error(), "cannot unmarshal") && !selfDecoding(t) {
		return fmt.Errorf("must be %s", describeType(t))
	}
	return err
}

var jsonUnmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

// selfDecoding reports whether t decodes itself (resource.Quantity, metav1.Time,
// intstr.IntOrString): its JSON shape is its own business, it has no fields.
func selfDecoding(t reflect.Type) bool {
	return t.Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler)
}

func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

// jsonFields returns the JSON names of a struct's fields, with inline and embedded
// structs flattened the way encoding/json flattens them.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		inline := strings.Contains(","+opts+",", ",inline,")
		if (f.Anonymous && name == "") || inline {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					out[k] = v
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// shortJSON renders the value at path inside v for an error message, quoted the way
// field.Invalid quotes values.
func shortJSON(v any, path string) string {
	cur := v
	for _, part := range splitPath(path) {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[part.key]
		case []any:
			if part.index >= 0 && part.index < len(c) {
				cur = c[part.index]
			}
		}
	}
	switch c := cur.(type) {
	case string:
		return fmt.Sprintf("%q", c)
	default:
		b, _ := json.Marshal(c)
		s := string(b)
		if len(s) > 60 {
			s = s[:57] + "..."
		}
		return s
	}
}

type pathPart struct {
	key   string
	index int
}

// splitPath splits "a.b[2].c[nvidia.com/gpu]" into its parts; an index part has
// key "". Keys in brackets may contain dots, as resource names do.
func splitPath(path string) []pathPart {
	var parts []pathPart
	for i := 0; i < len(path); {
		switch path[i] {
		case '.':
			i++
		case '[':
			end := strings.IndexByte(path[i:], ']')
			if end < 0 {
				return parts
			}
			inner := path[i+1 : i+end]
			if idx, err := strconv.Atoi(inner); err == nil {
				parts = append(parts, pathPart{index: idx})
			} else {
				parts = append(parts, pathPart{key: inner, index: -1})
			}
			i += end + 1
		default:
			end := strings.IndexAny(path[i:], ".[")
			if end < 0 {
				end = len(path) - i
			}
			parts = append(parts, pathPart{key: path[i : i+end], index: -1})
			i += end
		}
	}
	return parts
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
