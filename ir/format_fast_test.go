package ir

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// plainCorpus returns the testdata graphs printed without their attrs (so
// that the fast path reads them whole) and the hostile corpus's JSON files.
func plainCorpus(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	graphs, err := filepath.Glob("../testdata/*.json")
	require.NoErrorf(t, err, "%v", err)
	for _, path := range graphs {
		data, err := os.ReadFile(path)
		require.NoErrorf(t, err, "%v", err)
		g, err := Decode(data)
		require.NoErrorf(t, err, "%s: %v", path, err)
		for _, n := range g.Nodes {
			n.Attrs = nil
		}
		var b bytes.Buffer
		require.NoError(t, Print(&b, g))
		out = append(out, b.Bytes())
	}
	hostile, err := filepath.Glob("../testdata/hostile/*.json")
	require.NoErrorf(t, err, "%v", err)
	for _, path := range hostile {
		data, err := os.ReadFile(path)
		require.NoErrorf(t, err, "%v", err)
		out = append(out, data)
	}
	require.GreaterOrEqual(t, len(out), 10)
	return out
}

// agree reads data with file (encoding/json) and with fastFile, in both
// modes, and fails unless fastFile either gives up or returns what file
// returns: the same error text, or the same graph and record offsets. It
// reports whether fastFile read the file.
func agree(t require.TestingT, data []byte) bool {
	fast := false
	for _, check := range []bool{false, true} {
		slow := newDecoder(data)
		slow.checkOnly = check
		g1, err1 := slow.file()
		quick := newDecoder(data)
		quick.checkOnly = check
		g2, ok, err2 := quick.fastFile()
		if !ok {
			require.Nilf(t, err2, "fastFile gave up with an error: %v", err2)
			continue
		}
		fast = true
		if err1 != nil || err2 != nil {
			require.Falsef(t, err1 == nil || err2 == nil, "file: %v; fastFile: %v\n%s", err1, err2, data)
			require.Equalf(t, err1.Error(), err2.Error(), "\n%s", data)
			continue
		}
		if !check { // the check pass's graph holds nothing and is dropped
			require.Equal(t, g1, g2)
		}
		require.Equal(t, slow.valueAt, quick.valueAt)
		require.Equal(t, slow.nodeAt, quick.nodeAt)
		require.Equal(t, slow.orderAt, quick.orderAt)
	}
	return fast
}

// TestFastFileAgrees: on the plain corpus and on random byte mutations of
// it, fastFile returns exactly what file returns whenever it does not give
// up, and it reads every unmutated plain graph.
func TestFastFileAgrees(t *testing.T) {
	corpus := plainCorpus(t)
	for _, data := range corpus[:6] {
		require.Truef(t, agree(t, data), "fastFile gave up on a plain graph:\n%s", data)
	}
	// Edits the fast path must hand to encoding/json (which refuses or
	// reads them its own way).
	base := string(corpus[0])
	for _, edit := range [][2]string{
		{`"id": 1,`, `"id": 01,`}, {`"id": 1,`, `"id": 1.0,`}, {`"id": 1,`, `"id": 1e0,`},
		{`"id": 1,`, `"ID": 1,`}, {`"id": 1,`, `"id": 1, "id": 1,`}, {`"id": 1,`, `"id": null,`},
		{`"name": "`, `"name": "\u0041`}, {`"name": "`, `"name": "é`}, {`"format"`, `"Format"`},
		{`"version": 1`, `"version": 2`}, {`"format": "memplan-graph"`, `"format": "other"`},
	} {
		require.Containsf(t, base, edit[0], "corpus[0] lacks %q", edit[0])
		data := []byte(strings.Replace(base, edit[0], edit[1], 1))
		require.Falsef(t, agree(t, data), "fastFile read %q", edit[1])
	}
	const alphabet = "{}[],:\"\\ 0123456789-.eEabcdfilnoprstuxyz_"
	fastRuns, runs, fastErrs := 0, 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		pick := corpus[:6] // the plain graphs, most of the time
		if rapid.IntRange(0, 7).Draw(rt, "hostile") == 0 {
			pick = corpus[6:]
		}
		data := bytes.Clone(rapid.SampledFrom(pick).Draw(rt, "file"))
		for range rapid.IntRange(1, 2).Draw(rt, "edits") {
			at := rapid.IntRange(0, len(data)-1).Draw(rt, "at")
			c := alphabet[rapid.IntRange(0, len(alphabet)-1).Draw(rt, "char")]
			switch rapid.IntRange(0, 6).Draw(rt, "op") {
			case 3, 4, 5, 6: // a digit for a digit: the file stays plain
				for k := range len(data) {
					if j := (at + k) % len(data); data[j] >= '0' && data[j] <= '9' {
						data[j] = byte('0' + rapid.IntRange(0, 9).Draw(rt, "digit"))
						break
					}
				}
			case 0:
				data[at] = c
			case 1:
				data = append(data[:at], data[at+1:]...)
			default:
				data = append(data[:at], append([]byte{c}, data[at:]...)...)
			}
			if len(data) == 0 {
				return
			}
		}
		runs++
		if agree(rt, data) {
			fastRuns++
			if _, _, err := read(data); err != nil {
				fastErrs++
			}
		}
	})
	// Digit edits keep a file plain: the fast path must have been
	// compared, not skipped, and some of what it read refused.
	require.Greaterf(t, fastRuns, runs/10, "fastFile read %d of %d mutated files", fastRuns, runs)
	require.Positivef(t, fastErrs, "no mutated file that fastFile read was refused (%d read)", fastRuns)
	t.Logf("fastFile read %d of %d mutated files, %d of them refused", fastRuns, runs, fastErrs)
}

// cursorValue and cursorNode read one whole record with the cursor.
func cursorValue(raw string, fv *fileValue) bool {
	s := fastScan{b: []byte(raw)}
	return s.value(fv, &fastScratch{}) && s.end()
}

func cursorNode(raw string, fn *fileNode) bool {
	s := fastScan{b: []byte(raw)}
	return s.node(fn, &fastScratch{}) && s.end()
}

// TestFastRecordAgrees: a record the cursor accepts decodes through
// encoding/json (strict fields) to the same record.
func TestFastRecordAgrees(t *testing.T) {
	values := []string{
		`{"id":3,"name":"x","dtype":"f32","shape":[2,3],"flags":["input","pinned"],"pin_reason":"r"}`,
		`{ "id" : -0 , "dtype":"i8","shape":[],"view":{"base":1,"offset":8,"strides":[4]},"data":"AAAA"}`,
		`{"shape":[1,2,3]}`,
		`{}`,
	}
	for _, raw := range values {
		var a, b fileValue
		require.Truef(t, cursorValue(raw, &a), "%s", raw)
		dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&b))
		require.Truef(t, reflect.DeepEqual(a, b), "%s: fast %+v, json %+v", raw, a, b)
	}
	nodes := []string{
		`{"id":0,"name":"n","op":"Add","opaque":true,"inputs":[0,1],"outputs":[2],"keep_alive":[]}`,
		`{"id":1,"op":"Relu","opaque":false,"inputs":[],"outputs":[3]}`,
	}
	for _, raw := range nodes {
		var a, b fileNode
		require.Truef(t, cursorNode(raw, &a), "%s", raw)
		require.NoError(t, json.Unmarshal([]byte(raw), &b))
		require.Truef(t, reflect.DeepEqual(a, b), "%s: fast %+v, json %+v", raw, a, b)
	}
	// What is not plain goes to encoding/json.
	for _, raw := range []string{
		`{"ID":1}`, `{"id":1,"id":2}`, `{"name":"caf\u00e9"}`, `{"name":"café"}`,
		`{"id":null}`, `{"id":1e3}`, `{"id":1.0}`, `{"id":1234567890123456789}`,
		`{"shape":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65]}`,
		`{"shape":"4"}`, `{"flags":[1]}`, `{"bogus":1}`, `{"id":1} x`,
	} {
		var fv fileValue
		require.Falsef(t, cursorValue(raw, &fv), "fast path took %s", raw)
	}
	var fn fileNode
	require.False(t, cursorNode(`{"id":0,"op":"Gelu","attrs":{"approximate":"tanh"},"inputs":[0],"outputs":[1]}`, &fn))
}
