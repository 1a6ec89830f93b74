// Package tcpros subscribes to a busy ROS topic without goroslib's
// per-message cost (reflection decoding, a goroutine hop, a read per
// message): it speaks TCPROS itself and hands the caller the raw bytes of
// only the newest message of each read batch, to decode as it likes.
//
// The subscription belongs to an existing node (usually a goroslib node):
// it registers under that node's name and slave API URI, so `rostopic info`
// and `rosnode info` list the node as a subscriber. That node's slave API
// is not ours, so publisherUpdate calls never reach us: the master is
// polled for the topic's publishers instead.
//
// Config.Every paces the reads: between two batches the reader sleeps with
// the socket's receive low-water mark raised, so a 1 kHz publisher costs a
// wake-up per batch instead of one per message. Subscription.Fresh cuts the
// pause short for a caller that must act on the newest state.
package tcpros
