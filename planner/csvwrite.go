package planner

import (
	"fmt"
	"io"
	"strconv"
	"sync"
)

// csvWriteBlock is the number of rows WriteCSV formats at a time, and
// csvWriteParallel the number from which two goroutines format them.
const (
	csvWriteBlock    = 1 << 13
	csvWriteParallel = 1 << 16
)

// WriteCSV writes bufs in the DSA format with an offset column:
// id,lower,upper,size,offset, plus alignment when any buffer has one above 1.
// offsets is index-aligned with bufs; nil writes the header without the
// offset column. Buffer.Name, when set, is written as the id.
//
// Rows are formatted in blocks of csvWriteBlock and written as each is
// done; from csvWriteParallel rows two goroutines format the blocks, at
// most four ahead of the writer, so the memory held stays a few blocks
// (a million rows: about 0.1 s of formatting off the wall time).
func WriteCSV(w io.Writer, bufs []Buffer, offsets []int64) error {
	if offsets != nil && len(offsets) != len(bufs) {
		return fmt.Errorf("planner: %d offsets for %d buffers: %w", len(offsets), len(bufs), ErrLength)
	}
	withAlign := false
	for i := range bufs {
		withAlign = withAlign || bufs[i].Align > 1
	}
	head := "id,lower,upper,size"
	if withAlign {
		head += ",alignment"
	}
	if offsets != nil {
		head += ",offset"
	}
	if _, err := io.WriteString(w, head+"\n"); err != nil {
		return fmt.Errorf("planner: writing csv: %w", err)
	}
	// rows appends the rows of block k to dst.
	rows := func(dst []byte, k int) []byte {
		for i := k * csvWriteBlock; i < min((k+1)*csvWriteBlock, len(bufs)); i++ {
			b := &bufs[i]
			if b.Name != "" {
				dst = append(dst, csvField(b.Name)...)
			} else {
				dst = strconv.AppendInt(dst, b.ID, 10)
			}
			for _, v := range [3]int64{b.Start, b.End, b.Size} {
				dst = strconv.AppendInt(append(dst, ','), v, 10)
			}
			if withAlign {
				dst = strconv.AppendInt(append(dst, ','), max(b.Align, 1), 10)
			}
			if offsets != nil {
				dst = strconv.AppendInt(append(dst, ','), offsets[i], 10)
			}
			dst = append(dst, '\n')
		}
		return dst
	}
	blocks := (len(bufs) + csvWriteBlock - 1) / csvWriteBlock
	write := func(k int, block []byte) error {
		if _, err := w.Write(block); err != nil {
			return fmt.Errorf("planner: writing csv rows %d to %d: %w", k*csvWriteBlock, min((k+1)*csvWriteBlock, len(bufs))-1, err)
		}
		return nil
	}
	if len(bufs) < csvWriteParallel {
		var block []byte
		for k := range blocks {
			block = rows(block[:0], k)
			if err := write(k, block); err != nil {
				return err
			}
		}
		return nil
	}
	// Formatter f takes blocks f, f+2, ...; block k may start once the
	// writer has taken block k-4 (gate[k] closed), and done[k] hands it to
	// the writer. stop ends the formatters early when a write fails.
	const ahead = 4
	done := make([]chan []byte, blocks)
	gate := make([]chan struct{}, blocks)
	for k := range blocks {
		done[k] = make(chan []byte, 1)
		gate[k] = make(chan struct{})
		if k < ahead {
			close(gate[k])
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for f := range 2 {
		wg.Go(func() {
			for k := f; k < blocks; k += 2 {
				select {
				case <-gate[k]:
				case <-stop:
					return
				}
				done[k] <- rows(make([]byte, 0, 40*csvWriteBlock), k)
			}
		})
	}
	var err error
	for k := range blocks {
		block := <-done[k]
		if k+ahead < blocks {
			close(gate[k+ahead])
		}
		if err = write(k, block); err != nil {
			break
		}
	}
	close(stop)
	wg.Wait()
	return err
}
