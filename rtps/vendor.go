package rtps

import "github.com/actbridge/actbridge/rtps/wire"

// VendorID is the vendor id this library announces. The OMG assigns
// vendor ids (dds-foundation.org's list ran from 01.01 to 01.16 in late
// 2024); 01.ab is not assigned, so no peer mistakes us for another
// implementation and reads our vendor-specific parameters (we send none)
// as its own. This constant is the one place it is chosen.
const VendorID wire.VendorID = 0x01ab
