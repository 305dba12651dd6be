/// What an app developer should do about an error code: one table per protocol, next to its names.
extension ATTErrorCode {
    /// The next step, for the codes with one (Core Vol 3, Part F, §3.4.1.1), naming the sides
    /// (`the phone`, `the accessory`): the phone may be the server.
    public func advice(server: String, client: String) -> String? {
        switch rawValue {
        case 0x05:
            return "\(client) must pair (bond) with \(server), then retry"
                + (client == "the phone" ? "; iOS and Android start pairing on this error" : "")
        case 0x08: return "\(server) wants authorization: it must allow \(client)"
        default: return advice
        }
    }

    /// The next step where it is the same whichever side is the server.
    private var advice: String? {
        switch rawValue {
        case 0x01:
            return "the handle is not in the server's database: rediscover (Service Changed, or a stale GATT cache)"
        case 0x02: return "the characteristic is not readable: check its properties"
        case 0x03: return "the characteristic is not writable: check its properties (write vs. write without response)"
        case 0x06: return "the server does not support this request"
        case 0x07: return "the offset is past the value's end"
        case 0x09: return "too many prepared writes: execute or cancel the queue first"
        case 0x0c: return "the link's encryption key is too short: pair again with a full-size key"
        case 0x0d:
            return "the value's length is wrong: send the length the characteristic expects (and at most MTU - 3 bytes)"
        case 0x0f: return "encrypt the link first: bond, or reconnect so the stored keys are used"
        case 0x11: return "the server ran out of resources: retry later, or slow down"
        case 0x12: return "the client's GATT cache is out of date: rediscover services"
        case 0x13: return "the server refused this value: check the range the characteristic allows"
        case 0xfd:
            return "write the CCCD with 0x0001 (notify) or 0x0002 (indicate) as the characteristic's properties allow"
        case 0xfe: return "wait for the procedure in progress to end"
        default: return nil
        }
    }
}

extension HCIErrorCode {
    /// Why a connection attempt or a link failed, for the codes seen in practice.
    public var advice: String? {
        switch rawValue {
        case 0x04: return "the device did not answer paging: out of range, off, or not connectable"
        case 0x05: return "authentication failed: the keys do not match; forget the device on the phone and pair again"
        case 0x06: return "the bond is gone on one side: forget the device on the phone and pair again"
        case 0x08: return "the peer stopped answering for a supervision timeout: range, interference, or it reset"
        case 0x09: return "the controller has no room for another connection"
        case 0x0d, 0x0e, 0x0f: return "the peer refused the connection"
        case 0x13: return "the peer (its firmware or app) ended the link"
        case 0x16: return "the phone (an app or the OS) ended the link"
        case 0x1a: return "the peer does not support a feature the phone asked for"
        case 0x22, 0x23: return "the link layer timed out waiting for a response: range or a stuck peer"
        case 0x3b: return "the connection parameters cannot be accepted"
        case 0x3d:
            return "a packet failed its integrity check: the keys differ (a stale bond) or the radio corrupted it"
        case 0x3e: return "the connection was never established: the peer stopped advertising or is out of range"
        default: return nil
        }
    }
}
