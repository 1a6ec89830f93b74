package graph

import (
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

// VendorName names a DDS vendor id ("eProsima Fast DDS"), as the OMG's
// vendor list does, or gives the id ("vendor 01.42") for one it does not
// know.
func VendorName(v wire.VendorID) string {
	switch v {
	case wire.VendorRTI:
		return "RTI Connext DDS"
	case 0x0102:
		return "ADLINK OpenSplice"
	case wire.VendorOpenDDS:
		return "OpenDDS"
	case 0x0106:
		return "Twin Oaks CoreDX"
	case wire.VendorEProsima:
		return "eProsima Fast DDS"
	case wire.VendorCyclone:
		return "Eclipse Cyclone DDS"
	case 0x0111:
		return "GurumDDS"
	case 0x0112:
		return "RustDDS"
	case rtps.VendorID:
		return "Go rtps"
	}
	return "vendor " + v.String()
}
