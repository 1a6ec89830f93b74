package rtps

import "github.com/actbridge/actbridge/rtps/wire"

// VendorID is the vendor id this library announces. The OMG assigns
// vendor ids; 01.ab is not assigned (the assigned ones run from 01.01 to
// the low 01.2x), so no peer mistakes us for another implementation and
// interprets our vendor-specific parameters (we send none) as its own.
// This constant is the one place it is chosen.
const VendorID wire.VendorID = 0x01ab
