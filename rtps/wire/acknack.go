package wire

// AckNack is a reader's answer to a heartbeat: every change below
// State.Base is acknowledged, the members of State are missing.
type AckNack struct {
	Endianness
	ReaderID, WriterID EntityID
	State              SequenceNumberSet
	Count              int32
	Final              bool // F flag: the writer need not answer
}

func (*AckNack) Kind() SubmessageKind { return KindAckNack }

func (a *AckNack) body(b []byte, o ByteOrder) ([]byte, uint8, error) {
	b = appendEntityID(b, a.ReaderID)
	b = appendEntityID(b, a.WriterID)
	b = a.State.appendTo(b, o)
	b = o.AppendUint32(b, uint32(a.Count))
	if a.Final {
		return b, 0x02, nil
	}
	return b, 0, nil
}

func (a *AckNack) parse(d *decoder, flags uint8) error {
	a.ReaderID = d.entityID()
	a.WriterID = d.entityID()
	a.State.decode(d)
	a.Count = int32(d.u32())
	a.Final = flags&0x02 != 0
	return nil
}

// NackFrag asks a writer for missing fragments of one change.
type NackFrag struct {
	Endianness
	ReaderID, WriterID EntityID
	WriterSN           SequenceNumber
	State              FragmentNumberSet
	Count              int32
}

func (*NackFrag) Kind() SubmessageKind { return KindNackFrag }

func (n *NackFrag) body(b []byte, o ByteOrder) ([]byte, uint8, error) {
	b = appendEntityID(b, n.ReaderID)
	b = appendEntityID(b, n.WriterID)
	b = appendSN(b, o, n.WriterSN)
	b = n.State.appendTo(b, o)
	return o.AppendUint32(b, uint32(n.Count)), 0, nil
}

func (n *NackFrag) parse(d *decoder, _ uint8) error {
	n.ReaderID = d.entityID()
	n.WriterID = d.entityID()
	n.WriterSN = d.sn()
	n.State.decode(d)
	n.Count = int32(d.u32())
	return nil
}

// Gap tells readers that Start and the members of List will never come
// (not relevant to them, or gone from the history).
type Gap struct {
	Endianness
	ReaderID, WriterID EntityID
	Start              SequenceNumber
	List               SequenceNumberSet
}

func (*Gap) Kind() SubmessageKind { return KindGap }

func (g *Gap) body(b []byte, o ByteOrder) ([]byte, uint8, error) {
	b = appendEntityID(b, g.ReaderID)
	b = appendEntityID(b, g.WriterID)
	b = appendSN(b, o, g.Start)
	return g.List.appendTo(b, o), 0, nil
}

func (g *Gap) parse(d *decoder, _ uint8) error {
	g.ReaderID = d.entityID()
	g.WriterID = d.entityID()
	g.Start = d.sn()
	g.List.decode(d)
	return nil
}
