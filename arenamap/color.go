package arenamap

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/bits"
)

// Colours are a pure function of the key, never of the other keys in the
// map, so the same op kind or size class has the same colour in every
// picture. The op kinds of package ir have fixed entries; any other kind
// hashes (FNV-1a) into the palette.

// ColorBy selects the colour key of the blocks.
type ColorBy uint8

const (
	// ByKind colours each block by its producer's op kind.
	ByKind ColorBy = iota
	// BySize colours each block by its size class (power of two).
	BySize
)

// palette is a 12-colour qualitative palette (light enough for dark text).
var palette = [...]string{
	"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
	"#b07aa1", "#ff9da7", "#9c755f", "#86bcb6", "#d4a6c8", "#a0cbe8",
}

var kindColor = map[string]string{
	"conv":        palette[0],
	"matmul":      palette[1],
	"elementwise": palette[2],
	"norm":        palette[3],
	"pool":        palette[4],
	"reduce":      palette[5],
	"softmax":     palette[6],
	"data":        palette[7],
	"opaque":      palette[8],
	"view":        palette[9],
	"input":       palette[10],
	"":            "#bab0ac",
}

// KindColor returns the colour of an op kind.
func KindColor(kind string) string {
	if c, ok := kindColor[kind]; ok {
		return c
	}
	h := fnv.New32a()
	h.Write([]byte(kind))
	return palette[h.Sum32()%uint32(len(palette))]
}

// SizeClass is floor(log2(size)), the colour key of BySize; 0 for size <= 1.
func SizeClass(size int64) int {
	if size <= 1 {
		return 0
	}
	return 63 - bits.LeadingZeros64(uint64(size))
}

// sizeStops is a perceptual ramp (viridis, reversed): small sizes pale
// yellow, large sizes dark violet.
var sizeStops = [...][3]float64{
	{0xfd, 0xe7, 0x25}, {0x5e, 0xc9, 0x62}, {0x21, 0x91, 0x8c}, {0x3b, 0x52, 0x8b}, {0x44, 0x01, 0x54},
}

// SizeColor returns the colour of a size class on a ramp from pale yellow
// (1 B) to dark violet (1 TiB and above): 40 classes.
func SizeColor(class int) string {
	t := float64(min(max(class, 0), 40)) / 40 * float64(len(sizeStops)-1)
	k := min(int(t), len(sizeStops)-2)
	f := t - float64(k)
	var c [3]int
	for i := range c {
		c[i] = int(math.Round(sizeStops[k][i] + (sizeStops[k+1][i]-sizeStops[k][i])*f))
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

// colorKey returns the legend key and colour of a block.
func colorKey(by ColorBy, b *Block) (key, color string) {
	if by == BySize {
		c := SizeClass(b.Size)
		return sizeClassName(c), SizeColor(c)
	}
	return kindLabel(b.Kind), KindColor(b.Kind)
}

func kindLabel(k string) string {
	if k == "" {
		return "?"
	}
	return k
}

func sizeClassName(c int) string {
	return "≥ " + formatBytes(int64(1)<<c)
}
