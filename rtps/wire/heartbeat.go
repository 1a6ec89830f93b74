package wire

// Heartbeat tells readers which changes a writer has (First..Last).
type Heartbeat struct {
	Endianness
	ReaderID, WriterID EntityID
	First, Last        SequenceNumber
	Count              int32
	// Final (F flag) says no ACKNACK is needed; Liveliness (L) that the
	// heartbeat only asserts the writer's liveliness.
	Final, Liveliness bool
}

func (*Heartbeat) Kind() SubmessageKind { return KindHeartbeat }

func (h *Heartbeat) body(b []byte, o ByteOrder) ([]byte, uint8, error) {
	b = appendEntityID(b, h.ReaderID)
	b = appendEntityID(b, h.WriterID)
	b = appendSN(b, o, h.First)
	b = appendSN(b, o, h.Last)
	b = o.AppendUint32(b, uint32(h.Count))
	var flags uint8
	if h.Final {
		flags |= 0x02
	}
	if h.Liveliness {
		flags |= 0x04
	}
	return b, flags, nil
}

func (h *Heartbeat) parse(d *decoder, flags uint8) error {
	h.ReaderID = d.entityID()
	h.WriterID = d.entityID()
	h.First = d.sn()
	h.Last = d.sn()
	h.Count = int32(d.u32())
	h.Final = flags&0x02 != 0
	h.Liveliness = flags&0x04 != 0
	return nil
}

// HeartbeatFrag tells readers which fragments of a change a writer has
// (1..LastFragment).
type HeartbeatFrag struct {
	Endianness
	ReaderID, WriterID EntityID
	WriterSN           SequenceNumber
	LastFragment       uint32
	Count              int32
}

func (*HeartbeatFrag) Kind() SubmessageKind { return KindHeartbeatFrag }

func (h *HeartbeatFrag) body(b []byte, o ByteOrder) ([]byte, uint8, error) {
	b = appendEntityID(b, h.ReaderID)
	b = appendEntityID(b, h.WriterID)
	b = appendSN(b, o, h.WriterSN)
	b = o.AppendUint32(b, h.LastFragment)
	return o.AppendUint32(b, uint32(h.Count)), 0, nil
}

func (h *HeartbeatFrag) parse(d *decoder, _ uint8) error {
	h.ReaderID = d.entityID()
	h.WriterID = d.entityID()
	h.WriterSN = d.sn()
	h.LastFragment = d.u32()
	h.Count = int32(d.u32())
	return nil
}
