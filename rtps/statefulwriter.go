package rtps

import (
	"slices"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

// statefulWriter is the reliable side of a writer: a history of changes,
// a proxy per matched remote reader, repairs of what readers NACK and
// heartbeats until they acknowledge. An SEDP announcer keeps the latest
// change per key (keepLast 0) and is transient-local; a user writer keeps
// its last keepLast changes. It does no IO: its methods return the
// submessages to send, the participant sends them. Callers hold the
// participant's lock.
type statefulWriter struct {
	id, readerID wire.EntityID
	changes      []change // ascending SN, a window of base (see keep)
	base         []change
	next         wire.SequenceNumber
	hbCount      int32
	hbFragCount  int32
	readers      map[wire.GUID]*readerProxy
	// proxies are readers' values, for the loops of every write that
	// need no GUID (a map's iteration was 7 % of a streaming writer's CPU).
	proxies  []*readerProxy
	keepLast int  // 0: one change per key
	durable  bool // transient-local: new readers get the history
	// blocking: a reliable keep-all writer, whose writes wait while its
	// readers lag (see lagging) instead of dropping what they lack.
	blocking bool
	// progress, when a write waits, is closed when a reader acknowledges
	// more or goes away.
	progress chan struct{}
	// inFlight are changes a Write is still sending: heartbeats from
	// elsewhere announce only what precedes them.
	inFlight []wire.SequenceNumber
	// quietWrites: a user writer's writes carry Final heartbeats except
	// now and then (see asks); unasked counts what was written since a
	// heartbeat last asked for acknowledgments, asked is when a write's
	// last did.
	quietWrites            bool
	unaskedOctets, unasked int
	asked                  time.Time
	// pool, when set, holds the history's payloads: copies the writer
	// made, given back as changes leave the history (see retire); retired
	// are changes that left it while their write was still being sent.
	pool    *samplePool
	retired []change
}

type change struct {
	sn      wire.SequenceNumber
	key     wire.GUID
	payload []byte // serialized payload; nil for a dispose
	qos     wire.ParameterList
	ts      wire.Time // source timestamp, sent in an INFO_TS before it
	// to, when not zero, is the one reader the change is for (WriteTo):
	// any other gets a GAP for it.
	to wire.GUID
	// lent says submessages besides its write's own were built from it
	// (a repair, a late joiner's history): they are sent after the
	// participant's lock is let go, so its payload is never recycled.
	lent bool
}

// meantFor reports whether reader g may get c (see change.to).
func (c change) meantFor(g wire.GUID) bool { return c.to == (wire.GUID{}) || c.to == g }

type readerProxy struct {
	acked wire.SequenceNumber // every SN below is acknowledged
	// from is the first change a volatile writer's reader may get: what
	// was written before it matched is never sent to it, even when it
	// asks (it learns of it from a heartbeat, and Fast DDS readers and
	// ours ask for all a heartbeat announces). A service's request
	// writer depends on it: a server that matches later, a restarted one
	// too, must never receive an old request.
	from wire.SequenceNumber
	// bestEffort readers never acknowledge; they are not waited for.
	bestEffort bool
	// lastNack is the count of the last ACKNACK acted on; repeats are ignored.
	lastNack int32
	// answeredEmpty says its first empty, non-final ACKNACK got a heartbeat.
	answeredEmpty bool
	// heard says an ACKNACK came from it: it knows this writer.
	heard bool
	// synced says an ACKNACK from it answered a heartbeat (final, or
	// naming a missing change, or acknowledging one of its stream), not a
	// preemptive one sent before it heard any: see heartbeatThrough.
	synced bool
}

// newBuiltinWriter is an SEDP announcer: transient-local, one change per
// key, addressed to the remote builtin reader readerID.
func newBuiltinWriter(id, readerID wire.EntityID) *statefulWriter {
	return &statefulWriter{id: id, readerID: readerID, next: 1, readers: map[wire.GUID]*readerProxy{}, durable: true}
}

// write adds a change (nil payload: dispose) stamped now and returns the
// submessages every matched reader gets. It replaces the change of the
// same key, or drops the oldest beyond keepLast.
func (w *statefulWriter) write(key wire.GUID, payload []byte, qos wire.ParameterList, now time.Time) []wire.Submessage {
	w.dropAcknowledged() // with no reliable reader, all before this one
	if w.keepLast == 0 {
		w.changes = slices.DeleteFunc(w.changes, func(c change) bool { return c.key == key })
	} else if n := len(w.changes) - w.keepLast + 1; n > 0 {
		// Drop from the front without moving the rest (a keep-all history
		// is 1024 changes long); keep reuses the room.
		for _, c := range w.changes[:n] {
			w.retire(c)
		}
		clear(w.changes[:n])
		w.changes = w.changes[n:]
	}
	c := change{sn: w.next, key: key, payload: payload, qos: qos, ts: wire.TimeOf(now)}
	w.next++
	w.keep(c)
	// Its heartbeat follows it and every earlier change still being sent
	// (the send queue keeps the order of writes): it announces them all.
	final := !w.asks(len(payload), now)
	if c.payload == nil || len(c.payload) > maxData {
		return w.appendHeartbeats(w.submessages(c, nil), c, w.heartbeatThrough(final, c.sn))
	}
	m := &oneData{}
	m.ts.Time = c.ts
	w.fillData(&m.d, c)
	w.fillHeartbeat(&m.hb, final, c.sn)
	m.subs = [3]wire.Submessage{&m.ts, &m.d, &m.hb}
	return m.subs[:]
}

// oneData is what the write of a sample in one DATA sends, made in one
// allocation instead of four: its INFO_TS, DATA and HEARTBEAT, and the
// slice that holds them.
type oneData struct {
	ts   wire.InfoTS
	d    wire.Data
	hb   wire.Heartbeat
	subs [3]wire.Submessage
}

// keep appends c to the history. The changes dropped from its front leave
// room at the start of base; when the history reaches base's end, it moves
// back to the start rather than into a new array (which append made every
// few hundred writes of a streaming writer, copying the whole history).
func (w *statefulWriter) keep(c change) {
	if n := len(w.changes); n == cap(w.changes) {
		if off := cap(w.base) - cap(w.changes); off > 0 && off >= n {
			copy(w.base, w.changes)
			clear(w.base[n:]) // what moved, and what was dropped before
			w.changes = w.base[:n]
		} else {
			// Room for as many again, so that once full the history moves
			// back: append grows a large slice by a quarter, which the
			// front's room never reached.
			w.changes = slices.Grow(w.changes, n+1)
			w.base = w.changes[:cap(w.changes)]
		}
	}
	w.changes = append(w.changes, c)
}

// retire gives the payload of change c, which left the history, back to
// the pool once nothing reads it: never when it was lent, and only once
// its write's datagrams are out (see sent).
func (w *statefulWriter) retire(c change) {
	if w.pool == nil || c.lent || c.payload == nil {
		return
	}
	if _, ok := slices.BinarySearch(w.inFlight, c.sn); ok { // written, so sent, in order
		w.retired = append(w.retired, c) // in order too
		return
	}
	w.pool.put(c.payload)
}

// askEvery is how long a user writer's writes go with Final heartbeats at
// most: a write asks when the last that asked is older, so a lone write
// (a service request, a slow topic) always asks, and a stream is
// acknowledged, and its losses NACKed (CycloneDDS holds a NACK that a
// Final heartbeat draws for its NackDelay, 100 ms), within about as long.
const askEvery = 10 * time.Millisecond

// asks reports whether the heartbeat of a write of size octets at now
// asks the readers to acknowledge. An SEDP announcer's always do: a
// service client waits for its announcements' acknowledgments. A user
// writer's ask when askEvery has passed since the last that asked, or a
// quarter window has been written since (a blocking writer's window in
// samples too), and are Final otherwise, as CycloneDDS piggybacks them:
// a reader answers a Final heartbeat only when it lacks something
// (NACK), so a sample answered within askEvery (a round trip) costs one
// datagram each way instead of two (the ACKNACK), which held a 1 KB
// round trip 10–20 µs longer. The rest is acknowledged at the repair
// heartbeats, which ask, and WaitAcknowledged asks at once.
func (w *statefulWriter) asks(size int, now time.Time) bool {
	w.unaskedOctets += size
	w.unasked++
	window := min(w.keepLast, max(writeWindow/max(size, 1), 1))
	if !w.quietWrites || w.unaskedOctets >= heartbeatSpacing || now.Sub(w.asked) >= askEvery ||
		w.blocking && w.unasked >= max(window/4, 1) {
		w.asked = now // the counts start again in heartbeatThrough
		return true
	}
	return false
}

// sent notes that change sn's datagrams are out: heartbeats from
// elsewhere may announce it now (see heartbeat), and its payload goes back
// to the pool if it left the history meanwhile (see retire). Changes are
// sent in the order written, so both lists lose their first: a keep-last
// writer whose queue holds more than its depth retires as many as it
// sends, and a search and a move per send made that quadratic.
func (w *statefulWriter) sent(sn wire.SequenceNumber) {
	if len(w.inFlight) > 0 && w.inFlight[0] == sn {
		w.inFlight = w.inFlight[1:]
	} else {
		w.inFlight = slices.DeleteFunc(w.inFlight, func(s wire.SequenceNumber) bool { return s == sn })
	}
	for len(w.retired) > 0 && w.retired[0].sn <= sn {
		if w.retired[0].sn == sn {
			w.pool.put(w.retired[0].payload)
		}
		w.retired[0] = change{}
		w.retired = w.retired[1:]
	}
}

// appendHeartbeats closes what was just sent of change c, subs, with hb:
// a HEARTBEAT_FRAG with the last fragment available when c is fragmented
// (readers NACK_FRAG what they miss of it) before it.
func (w *statefulWriter) appendHeartbeats(subs []wire.Submessage, c change, hb *wire.Heartbeat) []wire.Submessage {
	if c.payload == nil || len(c.payload) <= maxData {
		return append(subs, hb)
	}
	w.hbFragCount++
	total := uint32((len(c.payload) + fragmentSize - 1) / fragmentSize)
	return append(subs, &wire.HeartbeatFrag{ReaderID: w.readerID, WriterID: w.id, WriterSN: c.sn, LastFragment: total, Count: w.hbFragCount}, hb)
}

// streaming reports whether a reliable reader still lacks a change before
// the one before sn: the writer writes faster than its readers
// acknowledge, and its samples may share datagrams (see sendQueue). The
// previous change alone unacknowledged is a request answered before its
// acknowledgment came, which is sent at once.
func (w *statefulWriter) streaming(sn wire.SequenceNumber) bool {
	for _, r := range w.proxies {
		if !r.bestEffort && r.acked < sn-1 {
			return true
		}
	}
	return false
}

// match adds remote reader g and returns what it gets first: the history
// when durable, and a heartbeat.
func (w *statefulWriter) match(g wire.GUID) []wire.Submessage {
	if _, ok := w.readers[g]; !ok {
		acked := wire.SequenceNumber(1)
		if !w.durable {
			acked = w.next
		}
		r := &readerProxy{acked: acked, from: acked, lastNack: -1 << 31}
		w.readers[g] = r
		w.proxies = append(w.proxies, r)
	}
	var out []wire.Submessage
	if w.durable {
		for i := range w.changes {
			if !w.changes[i].meantFor(g) {
				continue
			}
			out = append(out, w.lend(i, nil, g.Entity)...)
		}
	}
	return append(out, w.heartbeat(false))
}

func (w *statefulWriter) unmatch(g wire.GUID) {
	if r, ok := w.readers[g]; ok {
		delete(w.readers, g)
		w.proxies = slices.DeleteFunc(w.proxies, func(p *readerProxy) bool { return p == r })
	}
	w.progressed()
	w.dropAcknowledged()
}

// writeWindow bounds the octets a blocking writer has sent that some
// reliable reader has not acknowledged: Cyclone's writer history blocks at
// a high-water mark the same way. A sample larger than the window is sent
// when the readers have acknowledged everything before it. 256 KiB held
// 64 KB samples into ddsperf sub to half of ddsperf's rate, four samples
// a round trip of acknowledgments; 4 MiB overflowed Cyclone's socket
// buffer (NACK_FRAG repairs, 244 samples/s); 1 MiB reached 0.78×.
const writeWindow = 1 << 20

// lagging reports whether a blocking writer must wait before writing a
// sample of size octets: its reliable readers lack the last
// min(keepLast, writeWindow/size) samples, and writing more would drop
// from the history what they still need.
func (w *statefulWriter) lagging(size int) bool {
	if !w.blocking {
		return false
	}
	window := wire.SequenceNumber(min(w.keepLast, max(writeWindow/max(size, 1), 1)))
	for _, r := range w.proxies {
		if !r.bestEffort && w.next-r.acked >= window {
			return true
		}
	}
	return false
}

// waitProgress returns a channel closed when a reader acknowledges more
// or goes away.
func (w *statefulWriter) waitProgress() <-chan struct{} {
	if w.progress == nil {
		w.progress = make(chan struct{})
	}
	return w.progress
}

func (w *statefulWriter) progressed() {
	if w.progress != nil {
		close(w.progress)
		w.progress = nil
	}
}

// onAckNack records what a reader acknowledged and returns the repairs:
// the changes it misses, GAPs for numbers no longer held.
func (w *statefulWriter) onAckNack(g wire.GUID, a *wire.AckNack) []wire.Submessage {
	r, ok := w.readers[g]
	if !ok || a.Count <= r.lastNack {
		return nil
	}
	r.lastNack = a.Count
	r.heard = true
	if a.Final || a.State.NumBits > 0 || a.State.Base > r.from {
		r.synced = true
	}
	if a.State.Base > r.acked {
		r.acked = min(a.State.Base, w.next)
		w.progressed()
		w.dropAcknowledged()
	}
	if w.keepLast == 0 {
		w.prune() // only SEDP announcers dispose
	}
	var out []wire.Submessage
	var gaps []wire.SequenceNumber
	repaired := 0
	for _, sn := range a.State.Members() {
		if sn >= w.next {
			break
		}
		if sn < r.from { // written before it matched: not its to have
			gaps = append(gaps, sn)
			continue
		}
		if i, ok := slices.BinarySearchFunc(w.changes, sn, func(c change, sn wire.SequenceNumber) int { return cmpSN(c.sn, sn) }); ok && w.changes[i].meantFor(g) {
			if repaired > 0 && repaired+len(w.changes[i].payload) > maxRepair {
				continue // the reader asks again after the next heartbeat
			}
			repaired += len(w.changes[i].payload)
			out = append(out, w.lend(i, nil, g.Entity)...)
		} else {
			gaps = append(gaps, sn)
		}
	}
	if len(gaps) > 0 {
		// To the reader that asked, not to every reader of its
		// participant: for another, matched earlier, these may be samples
		// it still lacks (a late joiner's are below its own start).
		out = append(out, gapOf(g.Entity, w.id, gaps))
	}
	if len(out) > 0 {
		out = append(out, w.heartbeat(false))
	}
	// A reader that matched us asks nothing yet (a preemptive ACKNACK:
	// Cyclone's base 1, Fast DDS's base 0): tell it what we have now
	// instead of at the next periodic heartbeat, even when that is
	// nothing. CycloneDDS takes the first heartbeat it hears after
	// matching as the start of a volatile reader's stream: if that one
	// already announces a sample whose fragments are not all in (one was
	// lost), it acknowledges the sample and never delivers it (the first
	// 1 MiB sample into ddsperf sub, seen in its trace). Once per reader,
	// so that no exchange of the two can loop.
	if len(out) == 0 && !a.Final && a.State.NumBits == 0 && !r.answeredEmpty {
		r.answeredEmpty = true
		out = append(out, w.heartbeat(false))
	}
	return out
}

// dropAcknowledged lets a volatile user writer's history go of the
// changes every reliable reader has acknowledged (all of them when it has
// none), as CycloneDDS's writer history does: no reader can ask for them
// again, and a reader that matches later starts after them. Keeping them
// until keep-last pushed them out held a keep-all writer's last 1024
// samples (64 MiB of 64 KB samples), and each write copied into a pooled
// buffer last touched 1024 samples before, long out of the cache.
func (w *statefulWriter) dropAcknowledged() {
	if w.durable || w.keepLast == 0 {
		return
	}
	low := w.next
	for _, r := range w.proxies {
		if !r.bestEffort {
			low = min(low, r.acked)
		}
	}
	n := 0
	for n < len(w.changes) && w.changes[n].sn < low {
		w.retire(w.changes[n])
		n++
	}
	clear(w.changes[:n])
	w.changes = w.changes[n:]
}

// prune drops disposes every matched reader has acknowledged: a reader
// that joins later never knew the key, so it needs no dispose.
func (w *statefulWriter) prune() {
	low := w.next
	for _, r := range w.proxies {
		if !r.bestEffort {
			low = min(low, r.acked)
		}
	}
	w.changes = slices.DeleteFunc(w.changes, func(c change) bool { return c.payload == nil && c.sn < low })
}

// heard reports whether reader g has sent an ACKNACK acted on.
func (w *statefulWriter) heard(g wire.GUID) bool {
	r, ok := w.readers[g]
	return ok && r.lastNack != -1<<31
}

// unacked lists the readers that have not acknowledged everything.
func (w *statefulWriter) unacked() []wire.GUID {
	var out []wire.GUID
	for p, r := range w.readers {
		if r.acked < w.next && !r.bestEffort {
			out = append(out, p)
		}
	}
	return out
}

// unsure lists the reliable readers a periodic heartbeat is for: those
// that have not acknowledged everything, and those never heard from. A
// reader that matched when every change was acknowledged by the others
// gets one heartbeat from the match; when that one is lost, or comes
// before the reader is registered on its side, it never sends the
// ACKNACK that says it matched (a service client waited for a restarted
// server for good).
func (w *statefulWriter) unsure() []wire.GUID {
	var out []wire.GUID
	for p, r := range w.readers {
		if !r.bestEffort && (r.acked < w.next || !w.heard(p)) {
			out = append(out, p)
		}
	}
	return out
}

// acknowledged reports whether reader g acknowledged every change.
func (w *statefulWriter) acknowledged(g wire.GUID) bool {
	r, ok := w.readers[g]
	return ok && r.acked >= w.next
}

// fragmentSize is the fragment size of samples too large for one DATA,
// CycloneDDS's default, small enough for an Ethernet frame.
const fragmentSize = 1344

// maxRepair bounds the octets one ACKNACK has resent (at least one
// change), so repairs do not flood a reader that is already dropping.
const maxRepair = 256 << 10

// maxData is the largest payload sent in one DATA; larger ones go as
// DATA_FRAGs.
const maxData = 8000

// submessages is a change as sent: one DATA, or DATA_FRAGs when its
// payload exceeds maxData (only those fragments in frags, when given).
func (w *statefulWriter) submessages(c change, frags []uint32) []wire.Submessage {
	ts := &wire.InfoTS{Time: c.ts}
	if c.payload == nil || len(c.payload) <= maxData {
		// Room for the heartbeat a dispose's write appends.
		return append(make([]wire.Submessage, 0, 3), ts, w.data(c))
	}
	total := uint32((len(c.payload) + fragmentSize - 1) / fragmentSize)
	if frags == nil {
		for f := uint32(1); f <= total; f++ {
			frags = append(frags, f)
		}
	}
	runs := fragmentRuns(frags, total, firstRunMax(c.qos), nil)
	dfs := make([]wire.DataFrag, len(runs)) // one allocation for all
	out := make([]wire.Submessage, 0, 1+len(runs)+2)
	out = append(out, ts)
	for i, r := range runs {
		off := int(r.start-1) * fragmentSize
		end := min(off+int(r.n)*fragmentSize, len(c.payload))
		dfs[i] = wire.DataFrag{ReaderID: w.readerID, WriterID: w.id, WriterSN: c.sn, FragmentStart: r.start, Fragments: r.n,
			FragmentSize: fragmentSize, SampleSize: uint32(len(c.payload)), Payload: c.payload[off:end]}
		if r.start == 1 {
			dfs[i].InlineQoS = c.qos
		}
		out = append(out, &dfs[i])
	}
	return out
}

// fragmentsPerData is how many fragments one DATA_FRAG carries at most:
// as many as fit with the headers in a datagram of maxMessage, as
// CycloneDDS sends ten of its 1,344 octets in each. A reader handles each
// DATA_FRAG on its own (CycloneDDS: an insertion into the sample's
// fragment intervals); one per fragment cost its receive thread a third
// more CPU per 64 KB sample than its own writer's did.
const fragmentsPerData = 10

// fragmentRun is fragments start to start+n-1 of a sample.
type fragmentRun struct {
	start uint32
	n     uint16
}

// dataFragOverhead is what a datagram holds besides a DATA_FRAG's
// fragments: the RTPS header, INFO_DST, INFO_TS and the DATA_FRAG's own
// header.
const dataFragOverhead = 20 + 16 + 12 + 36

// firstRunMax is how many fragments the first DATA_FRAG of a sample
// carries, which carries its inline QoS too: as many as still fit in a
// datagram of maxMessage, at least one.
func firstRunMax(qos wire.ParameterList) uint16 {
	if qos == nil {
		return fragmentsPerData
	}
	octets := 4 // the sentinel
	for _, p := range qos {
		octets += 4 + (len(p.Value)+3)&^3
	}
	return uint16(min(fragmentsPerData, max(1, (maxMessage-dataFragOverhead-octets)/fragmentSize)))
}

// fragmentRuns appends to runs the runs of consecutive fragment numbers in
// frags (ascending), each at most fragmentsPerData long (the one from
// fragment 1, which carries the inline QoS, at most first), leaving out
// numbers outside 1..total.
func fragmentRuns(frags []uint32, total uint32, first uint16, runs []fragmentRun) []fragmentRun {
	for _, f := range frags {
		if f < 1 || f > total {
			continue
		}
		if n := len(runs); n > 0 && runs[n-1].start+uint32(runs[n-1].n) == f {
			limit := uint16(fragmentsPerData)
			if runs[n-1].start == 1 {
				limit = first
			}
			if runs[n-1].n < limit {
				runs[n-1].n++
				continue
			}
		}
		runs = append(runs, fragmentRun{start: f, n: 1})
	}
	return runs
}

// lend is the submessages of the history's change i sent besides its
// write (see submessages) to reader to alone: a repair, or a late
// joiner's history. Another reader of its participant may be one that
// matched later, which must not get what came before it. Its payload is
// not recycled from then on.
func (w *statefulWriter) lend(i int, frags []uint32, to wire.EntityID) []wire.Submessage {
	w.changes[i].lent = true
	out := w.submessages(w.changes[i], frags)
	for _, s := range out {
		switch s := s.(type) {
		case *wire.Data:
			s.ReaderID = to
		case *wire.DataFrag:
			s.ReaderID = to
		}
	}
	return out
}

// onNackFrag returns the fragments a reader asks for again.
func (w *statefulWriter) onNackFrag(g wire.GUID, n *wire.NackFrag) []wire.Submessage {
	r, ok := w.readers[g]
	if !ok {
		return nil
	}
	r.synced = true // it asks for a change it knows from a heartbeat
	i, ok := slices.BinarySearchFunc(w.changes, n.WriterSN, func(c change, sn wire.SequenceNumber) int { return cmpSN(c.sn, sn) })
	if !ok || !w.changes[i].meantFor(g) {
		return []wire.Submessage{gapOf(g.Entity, w.id, []wire.SequenceNumber{n.WriterSN})}
	}
	out := w.lend(i, n.State.Members(), g.Entity)
	if len(out) <= 1 { // the INFO_TS alone
		return nil
	}
	return w.appendHeartbeats(out, w.changes[i], w.heartbeat(false))
}

func (w *statefulWriter) data(c change) *wire.Data {
	d := &wire.Data{}
	w.fillData(d, c)
	return d
}

// fillData sets *d to the DATA of change c.
func (w *statefulWriter) fillData(d *wire.Data, c change) {
	*d = wire.Data{ReaderID: w.readerID, WriterID: w.id, WriterSN: c.sn}
	switch {
	case c.payload == nil:
		g := c.key.Bytes()
		d.InlineQoS = wire.ParameterList{{ID: wire.PIDKeyHash, Value: g[:]},
			{ID: wire.PIDStatusInfo, Value: []byte{0, 0, 0, wire.StatusDisposed | wire.StatusUnregistered}}}
		d.Key = true
		d.Payload, _ = plPayload(wire.ParameterList{{ID: wire.PIDEndpointGUID, Value: g[:]}})
		return
	case c.qos != nil:
		d.InlineQoS = c.qos
	case w.keepLast == 0: // an SEDP announcer's sample carries its key hash
		g := c.key.Bytes()
		d.InlineQoS = wire.ParameterList{{ID: wire.PIDKeyHash, Value: g[:]}}
	}
	d.Payload = c.payload
}

// heartbeat announces what the writer has, up to the first change a
// Write is still sending.
func (w *statefulWriter) heartbeat(final bool) *wire.Heartbeat {
	// A heartbeat that overtakes the datagrams of a change it announces
	// loses it: CycloneDDS, first hearing of a writer from a heartbeat,
	// treats every change up to its Last as history a volatile reader
	// never gets, and drops the fragments it has of them ("discard: too
	// old", defrag_rsample_drop in its trace): the first 1 MiB sample into
	// ddsperf sub went missing, acknowledged, in about half the runs.
	//
	// A change still being sent that the history has already let go of
	// (its readers acknowledged the start of a long batch, and the writer
	// went on) holds nothing back: its number is below First.
	last := w.next - 1
	first := w.first()
	for _, sn := range w.inFlight {
		if sn >= first {
			last = min(last, sn-1)
		}
	}
	return w.heartbeatThrough(final, last)
}

// first is the first change the history holds (next when it is empty).
func (w *statefulWriter) first() wire.SequenceNumber {
	if len(w.changes) > 0 {
		return w.changes[0].sn
	}
	return w.next
}

// heartbeatThrough is a heartbeat announcing the changes up to last. Its
// Last is never below First-1, which CycloneDDS drops as a malformed
// packet (spec 8.3.7.5.3).
//
// A volatile writer's heartbeat announces to a reliable reader that has
// not answered one yet only what it acknowledged: CycloneDDS starts a
// volatile reader's stream after the Last of the first heartbeat it
// hears, skipping what it lacks below. When the heartbeat of the match
// was lost (its preemptive ACKNACK repeats carry count 0, ignored as
// repeats), the first it heard was one after a write, and a sample lost
// before it never came (TestReliableSamplesSurviveALossyRelay: 149 of 150
// now and then).
func (w *statefulWriter) heartbeatThrough(final bool, last wire.SequenceNumber) *wire.Heartbeat {
	h := &wire.Heartbeat{}
	w.fillHeartbeat(h, final, last)
	return h
}

// fillHeartbeat sets *h to heartbeatThrough(final, last).
func (w *statefulWriter) fillHeartbeat(h *wire.Heartbeat, final bool, last wire.SequenceNumber) {
	w.hbCount++
	if !final {
		w.unaskedOctets, w.unasked = 0, 0
	}
	first := w.first()
	if !w.durable {
		for _, r := range w.proxies {
			if !r.bestEffort && !r.synced {
				last = min(last, r.acked-1)
			}
		}
	}
	*h = wire.Heartbeat{ReaderID: w.readerID, WriterID: w.id, First: first, Last: max(last, first-1), Count: w.hbCount, Final: final}
}

// gapOf builds a GAP of the given ascending numbers (at most 256 apart,
// as they come from one ACKNACK).
func gapOf(readerID, writerID wire.EntityID, sns []wire.SequenceNumber) *wire.Gap {
	g := &wire.Gap{ReaderID: readerID, WriterID: writerID, Start: sns[0], List: wire.NewSequenceNumberSet(sns[0] + 1)}
	for _, sn := range sns[1:] {
		g.List.Add(sn)
	}
	return g
}

func cmpSN(a, b wire.SequenceNumber) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
