package bench

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/test/ddspeers"
)

// Floor process modes that run our RTPS participant for the rtps rows;
// the bench starts them inside its network namespace (rtps.go).
const (
	rtpsPing   = "rtps_ping"   // round trips through an echo peer
	rtpsPub    = "rtps_pub"    // KeyedSeq samples into ddsperf sub, as fast as the writer goes
	rtpsIngest = "rtps_ingest" // take and decode JointStates, as a subscriber does
	rtpsJSPub  = "rtps_jspub"  // publish 7-joint JointStates at 1 kHz
	udpEcho    = "udp_echo"    // a bare Go UDP socket sending every datagram back
	rtpsEcho   = "rtps_echo"   // our participant writing every ping back from its listener
	udpSink    = "udp_sink"    // a bare Go UDP socket whose datagrams a second goroutine takes and decodes
)

// rtpsJobEnv carries an rtpsJob (JSON) to the re-executed process.
const rtpsJobEnv = "ACTBRIDGE_BENCH_RTPS_JOB"

// rtpsJob is what one of our RTPS floor processes does.
type rtpsJob struct {
	Domain  int
	Size    int           // sample size in octets (ping, pub)
	For     time.Duration // how long to measure (ping, pub)
	Topic   string        // ping: where pings go, ingest: what is read
	Reply   string        // ping: where the echo comes back
	Samples int           // ingest: stop after this many
	Readers int           // jspub: readers to wait for before publishing
	Echo    string        // ping: a udp_echo process's address, for the bare round trip; jspub: a udp_sink's, sent each sample's bytes too
	// ListenOnly: ping on the listener only (no Take half, no bare UDP).
	ListenOnly bool
}

// writeAllocs writes the process's allocation profile to name.
func writeAllocs(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	return errors.Join(pprof.Lookup("allocs").WriteTo(f, 0), f.Close())
}

// jointStateDDS is sensor_msgs/msg/JointState as rmw names it.
const jointStateDDS = "sensor_msgs::msg::dds_::JointState_"

// runRTPSJob runs the job in the environment and prints its result as one
// line of JSON on stdout ("result {...}").
func runRTPSJob(ctx context.Context, mode string) (err error) {
	switch mode {
	case udpEcho:
		return echoUDP(ctx)
	case udpSink:
		return sinkUDP(ctx)
	}
	var job rtpsJob
	if err := json.Unmarshal([]byte(os.Getenv(rtpsJobEnv)), &job); err != nil {
		return fmt.Errorf("%s: %w", rtpsJobEnv, err)
	}
	// ACTBRIDGE_BENCH_RTPS_PROFILE=<dir> writes a CPU profile per process
	// there (<dir>/<mode>-<pid>.pprof), to find what a row spends, and
	// what it allocated (<dir>/<mode>-<pid>.allocs.pprof), which sets how
	// often the garbage collector runs beside it.
	if dir := os.Getenv("ACTBRIDGE_BENCH_RTPS_PROFILE"); dir != "" {
		name := filepath.Join(dir, fmt.Sprintf("%s-%d", mode, os.Getpid()))
		f, cerr := os.Create(name + ".pprof")
		if cerr != nil {
			return cerr
		}
		defer func() { err = errors.Join(err, f.Close()) }()
		if cerr := pprof.StartCPUProfile(f); cerr != nil {
			return cerr
		}
		defer pprof.StopCPUProfile()
		defer func() { err = errors.Join(err, writeAllocs(name+".allocs.pprof")) }()
	}
	// ACTBRIDGE_BENCH_RTPS_TRACE=<dir> writes an execution trace of the
	// measured process's seconds 2 to 3 there (<dir>/<mode>-<pid>.trace),
	// for go tool trace -pprof=sched (waits to run) and -pprof=sync.
	// ACTBRIDGE_BENCH_RTPS_TRACE_AFTER=<duration> starts it later than 2 s:
	// the latency row's listener half begins after its Take half
	// (ACTBRIDGE_BENCH_RTPS_TRACE_AFTER=20s traces the listener's pings).
	if dir := os.Getenv("ACTBRIDGE_BENCH_RTPS_TRACE"); dir != "" {
		after := 2 * time.Second
		if v := os.Getenv("ACTBRIDGE_BENCH_RTPS_TRACE_AFTER"); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				return fmt.Errorf("ACTBRIDGE_BENCH_RTPS_TRACE_AFTER: %w", err)
			}
			after = d
		}
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%d.trace", mode, os.Getpid())))
		if err != nil {
			return err
		}
		defer f.Close()
		go func() {
			time.Sleep(after)
			if trace.Start(f) == nil {
				time.Sleep(time.Second)
				trace.Stop()
			}
		}()
	}
	p, err := rtps.NewParticipant(ctx, rtps.Config{Domain: job.Domain, Multicast: true})
	if err != nil {
		return err
	}
	defer p.Close()
	var res any
	switch mode {
	case rtpsPing:
		res, err = pingThroughEcho(ctx, p, job)
	case rtpsPub:
		res, err = publishKeyedSeq(ctx, p, job)
	case rtpsIngest:
		res, err = ingestJointStates(ctx, p, job)
	case rtpsJSPub:
		res, err = publishJointStates(ctx, p, job)
	case rtpsEcho:
		return echoRTPS(ctx, p, job)
	}
	if err != nil {
		return err
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	fmt.Printf("result %s\n", b)
	return nil
}

// jointStateType is the JointState type of the peers' registry.
func jointStateType() (*cdr.Struct, error) {
	reg, err := ddspeers.Registry()
	if err != nil {
		return nil, err
	}
	return reg.Struct("sensor_msgs/msg/JointState")
}

// pingResult is the ping process's round trips, taken (Take) and on a
// listener (Reader.Listen), and the bare UDP ones.
type pingResult struct {
	N                    int
	P50, P99             time.Duration
	ListenN              int
	ListenP50, ListenP99 time.Duration
	// ListenSelfP50 is the listener's own part of a round trip: from the
	// echo handed to it to the next ping's datagram sent (decode, encode,
	// Write), the rest being the wire, the echo peer and the wake-ups.
	ListenSelfP50  time.Duration
	UDPP50, UDPP99 time.Duration
}

// pinger writes JointState pings of about a size and knows its echoes.
type pinger struct {
	js    *cdr.Struct
	m     *cdr.Message
	stamp *cdr.Message
	w     *rtps.Writer
	size  int
	buf   []byte // the last ping's encoding; Write copies it, so it is reused
}

// send writes ping i.
func (pg *pinger) send(i int32) error {
	pg.stamp.Fields[0] = i // sec
	b, err := cdr.AppendEncode(pg.buf[:0], pg.m, cdr.LittleEndian)
	if err != nil {
		return err
	}
	pg.buf, pg.size = b, len(b)
	return pg.w.Write(b, nil)
}

// isEcho decodes a sample and reports whether it is the echo of ping i.
func (pg *pinger) isEcho(s rtps.Sample, i int32) (bool, error) {
	e, err := cdr.Decode(pg.js, s.Payload)
	if err != nil {
		return false, err
	}
	return e.Get("header").(*cdr.Message).Get("stamp").(*cdr.Message).Get("sec") == i, nil
}

// pingThroughEcho sends a JointState of about job.Size octets, waits for
// the echo peer to send it back, and repeats for job.For after a warm-up:
// each round trip includes encoding the ping and decoding the echo. It
// does so first taking the echoes (Take on this goroutine), then on the
// reader's listener, which writes the next ping itself, as ddsperf ping
// does; then it times the bare UDP round trips.
func pingThroughEcho(ctx context.Context, p *rtps.Participant, job rtpsJob) (pingResult, error) {
	js, err := jointStateType()
	if err != nil {
		return pingResult{}, err
	}
	qos := rtps.QoS{Reliability: rtps.Reliable, History: rtps.KeepLast, Depth: 1}
	w, err := p.NewWriter(rtps.EndpointData{Topic: job.Topic, Type: jointStateDDS, QoS: qos})
	if err != nil {
		return pingResult{}, err
	}
	r, err := p.NewReader(rtps.EndpointData{Topic: job.Reply, Type: jointStateDDS, QoS: qos})
	if err != nil {
		return pingResult{}, err
	}
	if err := waitMatchedBoth(ctx, p, w, r); err != nil {
		return pingResult{}, err
	}
	m := cdr.Zero(js)
	// Header and encapsulation take about 30 octets; positions fill the rest.
	m.Fields[js.FieldIndex("position")] = make([]float64, max(job.Size-30, 8)/8)
	pg := &pinger{js: js, m: m, stamp: m.Get("header").(*cdr.Message).Get("stamp").(*cdr.Message), w: w}
	if err := pingHandshake(ctx, pg, r); err != nil {
		return pingResult{}, err
	}
	var res pingResult
	if !job.ListenOnly {
		taken, err := pingTaking(ctx, pg, r, job.For)
		if err != nil {
			return res, err
		}
		res.N, res.P50, res.P99 = len(taken), taken.P50(), taken.P99()
	}
	heard, self, err := pingListening(ctx, pg, r, job.For)
	if err != nil {
		return res, err
	}
	res.ListenN, res.ListenP50, res.ListenP99, res.ListenSelfP50 = len(heard), heard.P50(), heard.P99(), self.P50()
	if job.ListenOnly {
		return res, nil
	}
	udp, err := pingUDP(job.Echo, pg.size, job.For)
	res.UDPP50, res.UDPP99 = udp.P50(), udp.P99()
	return res, err
}

// pingHandshake pings until one echo comes back. Our side being matched
// both ways does not mean the echo peer's writer has matched our reader
// yet: an echo it writes before then is lost, volatile, and a counted
// ping would wait for it in vain (seen once in CI). Its echoes arriving
// late are told apart by their number, -1.
func pingHandshake(ctx context.Context, pg *pinger, r *rtps.Reader) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		if err := pg.send(-1); err != nil {
			return err
		}
		tctx, tcancel := context.WithTimeout(ctx, 500*time.Millisecond)
		for {
			s, err := r.Take(tctx)
			if errors.Is(err, context.DeadlineExceeded) {
				break // ping again
			}
			if err != nil {
				tcancel()
				return err
			}
			if ok, err := pg.isEcho(s, -1); err != nil || ok {
				tcancel()
				return err
			}
		}
		tcancel()
		if ctx.Err() != nil {
			return fmt.Errorf("the echo peer never answered a ping: %w", ctx.Err())
		}
	}
}

// pingWarmUp is how many round trips each way of pinging makes before it
// counts.
const pingWarmUp = 200

// pingTaking pings and takes each echo on this goroutine, for d after
// the warm-up.
func pingTaking(ctx context.Context, pg *pinger, r *rtps.Reader, d time.Duration) (Sample, error) {
	var rtt Sample
	var end time.Time
	for i := int32(0); ; i++ {
		if i == pingWarmUp {
			end = time.Now().Add(d)
		}
		if !end.IsZero() && time.Now().After(end) {
			return rtt, nil
		}
		start := time.Now()
		if err := pg.send(i); err != nil {
			return rtt, err
		}
		for {
			tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			s, err := r.Take(tctx)
			cancel()
			if err != nil {
				return rtt, fmt.Errorf("ping %d: no echo: %w", i, err)
			}
			if ok, err := pg.isEcho(s, i); err != nil || ok {
				if err != nil {
					return rtt, err
				}
				break
			}
		}
		if !end.IsZero() {
			rtt = append(rtt, time.Since(start))
		}
	}
}

// pingListening pings from r's listener: each echo heard is timed and
// answered with the next ping on the goroutine that received it, for d
// after the warm-up; self is the listener's time from the echo to the next
// ping sent. Ping numbers go on from 1<<20, above pingTaking's.
func pingListening(ctx context.Context, pg *pinger, r *rtps.Reader, d time.Duration) (rtt, self Sample, err error) {
	var (
		end   time.Time
		start time.Time
		i     = int32(1 << 20)
		done  = make(chan error, 1)
	)
	finish := func(err error) {
		r.Listen(func(rtps.Sample) {})
		done <- err
	}
	r.Listen(func(s rtps.Sample) {
		heard := time.Now()
		ok, err := pg.isEcho(s, i)
		if err != nil {
			finish(err)
			return
		}
		if !ok {
			return
		}
		if !end.IsZero() {
			rtt = append(rtt, time.Since(start))
		}
		if i-(1<<20) == pingWarmUp {
			end = time.Now().Add(d)
		}
		if !end.IsZero() && time.Now().After(end) {
			finish(nil)
			return
		}
		i++
		start = time.Now()
		if err := pg.send(i); err != nil {
			finish(err)
			return
		}
		if !end.IsZero() {
			self = append(self, time.Since(heard))
		}
	})
	start = time.Now()
	if err := pg.send(i); err != nil {
		return nil, nil, err
	}
	// A lost ping ends the run (reliable: it is repaired within the
	// writer's heartbeats, well inside this bound).
	select {
	case err := <-done:
		return rtt, self, err
	case <-time.After(d + 60*time.Second):
		return nil, nil, fmt.Errorf("listening ping stalled at %d", i)
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// waitMatchedBoth waits until our writer and reader are matched and the
// peer's reader has told our writer it knows it: a volatile reader takes
// only what is written after that.
func waitMatchedBoth(ctx context.Context, p *rtps.Participant, w *rtps.Writer, r *rtps.Reader) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := w.WaitMatched(ctx, 1); err != nil {
		return fmt.Errorf("writer never matched: %w", err)
	}
	if r != nil {
		if _, err := p.WaitEndpoints(ctx, func([]rtps.EndpointData) bool {
			m, _ := p.Matched(r.GUID())
			return len(m) > 0
		}); err != nil {
			return fmt.Errorf("reader never matched: %w", err)
		}
	}
	if err := w.WaitReady(ctx, 1); err != nil {
		return fmt.Errorf("the peer's reader never told our writer it knows it: %w", err)
	}
	return nil
}

// pubResult is what the publishing process wrote, and the CPU it spent
// meanwhile (user and system, every thread): CPU per sample moves much
// less with the host's load than the rate does.
type pubResult struct {
	Samples    int
	Seconds    float64
	CPUSeconds float64
}

// publishKeyedSeq writes ddsperf's KeyedSeq samples (seq, key 0, octets
// to make job.Size, as ddsperf counts size) on its data topic for
// job.For, as fast as the writer takes them; ddsperf sub counts them.
func publishKeyedSeq(ctx context.Context, p *rtps.Participant, job rtpsJob) (pubResult, error) {
	w, err := p.NewWriter(rtps.EndpointData{Topic: "DDSPerfRDataKS", Type: "KeyedSeq", Keyed: true,
		QoS: rtps.QoS{Reliability: rtps.Reliable, History: rtps.KeepAll}})
	if err != nil {
		return pubResult{}, err
	}
	if err := waitMatchedBoth(ctx, p, w, nil); err != nil {
		return pubResult{}, err
	}
	baggage := max(job.Size-12, 0)
	sample := make([]byte, 16+baggage)
	sample[1] = 1 // CDR little endian
	binary.LittleEndian.PutUint32(sample[12:], uint32(baggage))
	cpu0, err := cpuSeconds(os.Getpid())
	if err != nil {
		return pubResult{}, err
	}
	start := time.Now()
	end := start.Add(job.For)
	n := 0
	for ; time.Now().Before(end); n++ {
		binary.LittleEndian.PutUint32(sample[4:], uint32(n))
		if err := w.WriteContext(ctx, sample, nil); err != nil {
			return pubResult{}, err
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := w.WaitAcknowledged(wctx); err != nil {
		return pubResult{}, fmt.Errorf("after %d samples: %w", n, err)
	}
	cpu1, err := cpuSeconds(os.Getpid())
	return pubResult{Samples: n, Seconds: time.Since(start).Seconds(), CPUSeconds: cpu1 - cpu0}, err
}

// ingestResult is what the ingesting process took.
type ingestResult struct {
	Samples int
}

// ingestJointStates takes JointStates from job.Topic and decodes each,
// keeping the latest, as a subscriber that uses them does; it prints
// "count N" every second, and ends after job.Samples or at ctx's end.
func ingestJointStates(ctx context.Context, p *rtps.Participant, job rtpsJob) (ingestResult, error) {
	js, err := jointStateType()
	if err != nil {
		return ingestResult{}, err
	}
	r, err := p.NewReader(jointStates(job.Topic))
	if err != nil {
		return ingestResult{}, err
	}
	fmt.Println("subscribed")
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var latest *cdr.Message
	n := 0
	for n < job.Samples {
		s, err := r.Take(ctx)
		if err != nil {
			return ingestResult{Samples: n}, nil // stopped
		}
		if latest, err = cdr.Decode(js, s.Payload); err != nil {
			return ingestResult{}, err
		}
		n++
		select {
		case <-tick.C:
			fmt.Printf("count %d\n", n)
		default:
		}
	}
	_ = latest
	return ingestResult{Samples: n}, nil
}

// jointStates is a JointState endpoint with ROS 2's default QoS
// (reliable, keep-last 10).
func jointStates(topic string) rtps.EndpointData {
	return rtps.EndpointData{Topic: topic, Type: jointStateDDS,
		QoS: rtps.QoS{Reliability: rtps.Reliable, History: rtps.KeepLast, Depth: 10}}
}

// sevenJoints is a 7-joint JointState as an arm with a gripper publishes.
func sevenJoints(js *cdr.Struct) *cdr.Message {
	m := cdr.Zero(js)
	m.Fields[js.FieldIndex("name")] = []string{"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint",
		"wrist_1_joint", "wrist_2_joint", "wrist_3_joint", "gripper_joint"}
	for _, f := range []string{"position", "velocity", "effort"} {
		m.Fields[js.FieldIndex(f)] = []float64{0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.01}
	}
	return m
}

// publishJointStates publishes a 7-joint JointState every millisecond on
// job.Topic (reliable, keep-last 10, as ROS 2's default profile) once
// job.Readers readers know our writer, until ctx ends.
func publishJointStates(ctx context.Context, p *rtps.Participant, job rtpsJob) (pubResult, error) {
	js, err := jointStateType()
	if err != nil {
		return pubResult{}, err
	}
	w, err := p.NewWriter(jointStates(job.Topic))
	if err != nil {
		return pubResult{}, err
	}
	if err := w.WaitReady(ctx, job.Readers); err != nil {
		return pubResult{}, err
	}
	fmt.Println("publishing")
	var sink *net.UDPConn
	if job.Echo != "" {
		a, err := net.ResolveUDPAddr("udp4", job.Echo)
		if err != nil {
			return pubResult{}, err
		}
		if sink, err = net.DialUDP("udp4", nil, a); err != nil {
			return pubResult{}, err
		}
		defer sink.Close()
	}
	m := sevenJoints(js)
	stamp := m.Get("header").(*cdr.Message).Get("stamp").(*cdr.Message)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	start := time.Now()
	n := 0
	for {
		select {
		case <-ctx.Done():
			return pubResult{Samples: n, Seconds: time.Since(start).Seconds()}, nil
		case now := <-tick.C:
			stamp.Fields[0], stamp.Fields[1] = int32(now.Unix()), uint32(now.Nanosecond())
			b, err := cdr.Encode(m, cdr.LittleEndian)
			if err != nil {
				return pubResult{}, err
			}
			if sink != nil {
				_, _ = sink.Write(b) // the bare Go floor's copy; a loss there only lowers its count
			}
			if err := w.Write(b, nil); err != nil {
				return pubResult{}, err
			}
			n++
		}
	}
}

// listenBareUDP opens a Go UDP socket on loopback, closed when ctx ends,
// and prints "listening ADDR" for the bench.
func listenBareUDP(ctx context.Context) (*net.UDPConn, error) {
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	go func() {
		<-ctx.Done()
		c.Close()
	}()
	fmt.Printf("listening %s\n", c.LocalAddr())
	return c, nil
}

// echoUDP sends every datagram it gets back to its sender until ctx ends:
// the other half of the bare round trip, on Go's own socket path.
func echoUDP(ctx context.Context) error {
	c, err := listenBareUDP(ctx)
	if err != nil {
		return err
	}
	buf := make([]byte, 65536)
	for {
		n, from, err := c.ReadFromUDPAddrPort(buf)
		if err != nil {
			return nil // closed
		}
		_, _ = c.WriteToUDPAddrPort(buf[:n], from)
	}
}

// sinkUDP is the ingestion row's bare Go floor: one goroutine reads
// datagrams from a UDP socket (Go's own net path) and hands each, copied,
// to a second goroutine that decodes it as a JointState, as ours takes
// and decodes each sample; it prints "count N" every second until ctx
// ends.
func sinkUDP(ctx context.Context) error {
	js, err := jointStateType()
	if err != nil {
		return err
	}
	c, err := listenBareUDP(ctx)
	if err != nil {
		return err
	}
	taken := make(chan []byte, 16)
	go func() {
		defer close(taken)
		buf := make([]byte, 65536)
		for {
			n, _, err := c.ReadFromUDPAddrPort(buf)
			if err != nil {
				return // closed
			}
			taken <- bytes.Clone(buf[:n])
		}
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	n := 0
	for b := range taken {
		if _, err := cdr.Decode(js, b); err != nil {
			return err
		}
		n++
		select {
		case <-tick.C:
			fmt.Printf("count %d\n", n)
		default:
		}
	}
	return nil
}

// echoRTPS writes every sample of job.Topic back on job.Reply from its
// reader's listener, payload unchanged, until ctx ends: the echo half of
// the round trip in Go, to set beside cycpeer echo's.
func echoRTPS(ctx context.Context, p *rtps.Participant, job rtpsJob) error {
	qos := rtps.QoS{Reliability: rtps.Reliable, History: rtps.KeepLast, Depth: 1}
	w, err := p.NewWriter(rtps.EndpointData{Topic: job.Reply, Type: jointStateDDS, QoS: qos})
	if err != nil {
		return err
	}
	r, err := p.NewReader(rtps.EndpointData{Topic: job.Topic, Type: jointStateDDS, QoS: qos})
	if err != nil {
		return err
	}
	r.Listen(func(s rtps.Sample) { _ = w.Write(s.Payload, nil) })
	fmt.Println("echoing")
	<-ctx.Done()
	return nil
}

// pingUDP times round trips of size-octet datagrams through the echo at
// addr for d: what the Go runtime's sockets and wake-ups cost two Go
// processes, the floor under our participant's round trip.
func pingUDP(addr string, size int, d time.Duration) (Sample, error) {
	c, err := net.Dial("udp4", addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	b, in := make([]byte, size), make([]byte, 65536)
	var rtt Sample
	end := time.Now().Add(d)
	for i := 0; time.Now().Before(end); i++ {
		start := time.Now()
		if _, err := c.Write(b); err != nil {
			return nil, err
		}
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := c.Read(in); err != nil {
			continue // lost: the next one
		}
		if i >= 200 {
			rtt = append(rtt, time.Since(start))
		}
	}
	return rtt, nil
}
