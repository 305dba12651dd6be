import BTLensCore

/// The GATT steps of a connection (MTU, discovery, subscriptions) as its ATT bearer sees them, and
/// the findings about them. Kept with the bearer, so the hot path looks nothing up.
struct ATTFacts: Sendable {
    var mtu: Int?
    var first: Lifecycle.Step?
    var discovery: Lifecycle.Step?
    var subscriptions: [Lifecycle.Subscription] = []
    var errors = 0
    /// Set by HCI: an encrypted link keeps subscriptions of a bond; an inferred one began before the capture.
    var encrypted = false
    var inferred = false
    /// Handles already said (undiscovered, unsubscribed), bounded by the handle space.
    var said: Set<UInt32> = []
    /// The handle of the last notification or indication judged: they come in runs from one
    /// characteristic, which need not be looked up in `said` again.
    var lastNotifying: UInt16?
}

extension ATTDecoder {
    /// Requests whose Attribute Not Found is how a discovery ends, not an error.
    static let discoveryRequests: Set<UInt8> = [0x04, 0x06, 0x08, 0x10]

    mutating func lifecycle(
        _ pdu: ArraySlice<UInt8>, _ out: inout ATTResult, direction: Direction, step: Lifecycle.Step,
        db key: GATTStore.Key
    ) {
        let opcode = out.info.opcode
        if facts.first == nil { facts.first = step }
        switch opcode {
        case .exchangeMTUResponse:
            facts.mtu = bearer.mtu
        case .readByGroupTypeResponse, .readByTypeResponse, .findInformationResponse, .findByTypeValueResponse:
            if facts.discovery == nil { facts.discovery = step }
        case .errorResponse:
            explain(pdu, direction, &out)
        case .readResponse, .readBlobResponse:
            // The value follows the opcode alone: at most ATT_MTU − 1 (§3.4.4.4, §3.4.4.6).
            if let handle = out.info.handle {
                checkLength(pdu.count - 1, opcode, handle, direction, &out, limit: bearer.mtu - 1)
            }
        case .writeRequest, .writeCommand:
            // The value is read where it lies, after the opcode and handle: bound to a name, it would
            // be copied (and a decoder that keeps no values has none in the info).
            guard let handle = out.info.handle else { break }
            let length = pdu.count - 3
            checkLength(length, opcode, handle, direction, &out)
            if out.info.uuid?.sig16 == GATTNames.clientCharacteristicConfiguration, length > 0 {
                let bits = pdu[pdu.startIndex + 3]
                let owner = gatt[key]?.characteristic(owning: handle)
                let kind: Lifecycle.Subscription.Kind =
                    bits & 3 == 3 ? .both : bits & 1 == 1 ? .notify : bits & 2 == 2 ? .indicate : .off
                let s = Lifecycle.Subscription(
                    valueHandle: owner?.valueHandle ?? handle &- 1, cccdHandle: handle, uuid: owner?.uuid,
                    kind: kind, step: step)
                facts.subscriptions.removeAll { $0.valueHandle == s.valueHandle }
                if facts.subscriptions.count < Lifecycle.subscriptionLimit { facts.subscriptions.append(s) }
            }
        case .handleValueNotification, .handleValueIndication:
            if let handle = out.info.handle { checkLength(pdu.count - 3, opcode, handle, direction, &out) }
            // Judged at a characteristic's first notification: on a link without a bond (a bonded server
            // remembers subscriptions), where this capture discovered its CCCD and no write enabled it.
            guard let handle = out.info.handle, !facts.inferred, !facts.encrypted, handle != facts.lastNotifying else {
                break
            }
            facts.lastNotifying = handle
            guard facts.said.insert(UInt32(handle) | 0x1_0000).inserted,
                facts.subscriptions.last(where: { $0.valueHandle == handle }).map({ $0.kind == .off }) ?? true,
                let cccd = gatt[key]?.cccd(of: handle)
            else { break }
            let uuid = out.info.uuid.map { " (\($0))" } ?? ""
            out.diagnostics.append(
                Diagnostic(
                    LifecycleDiagnostics.notSubscribed,
                    "\(direction.sender)'s \(opcode.name) from \(Hex.value(handle, width: 4))\(uuid), whose CCCD (\(Hex.value(cccd, width: 4))) \(direction.opposite.sender) did not enable in this connection before it, on a link that is not encrypted",
                    fields: [("att_handle", .hex(handle))]))
        default:
            break
        }
        checkHandle(opcode, out.info.handle, direction, db: key, &out)
    }

    /// A handle a client reads or writes, or a server notifies: 0x0000 is no attribute's (Core Vol 3
    /// Part F §3.2.2), whatever the discovery found; another one the discovery did not find was cached
    /// or guessed. Each said once per connection, and 0x0000 once per side.
    private mutating func checkHandle(
        _ opcode: ATTOpcode, _ handle: UInt16?, _ direction: Direction, db key: GATTStore.Key, _ out: inout ATTResult
    ) {
        switch opcode {
        case .readRequest, .readBlobRequest, .writeRequest, .writeCommand, .prepareWriteRequest,
            .handleValueNotification, .handleValueIndication:
            break
        default: return
        }
        guard let handle else { return }
        let who = direction.sender
        if handle == 0 {
            guard facts.said.insert(0x2_0000 | UInt32(direction.rawValue)).inserted else { return }
            out.diagnostics.append(
                Diagnostic(
                    LifecycleDiagnostics.invalidHandle,
                    "\(who)'s \(opcode.name) names handle 0x0000, which no attribute has: \(who) sent a handle it never set (a bug in its app or stack), not a handle the discovery missed",
                    fields: [("att_handle", .hex(handle))]))
            return
        }
        guard !opcode.isFromServer, facts.discovery != nil, out.info.uuid == nil, let db = gatt[key],
            !db.services.contains(where: { $0.start == handle }), facts.said.insert(UInt32(handle)).inserted
        else { return }
        out.diagnostics.append(
            Diagnostic(
                LifecycleDiagnostics.undiscoveredHandle,
                "\(who)'s \(opcode.name) to \(Hex.value(handle, width: 4)), which the discovery of \(direction.opposite.sender)'s database in this capture did not find",
                fields: [("att_handle", .hex(handle))]))
    }

    /// An Error Response in words: what was refused, why, and what the app should do.
    private mutating func explain(_ pdu: ArraySlice<UInt8>, _ direction: Direction, _ out: inout ATTResult) {
        var reader = ByteReader(pdu)
        guard (try? reader.u8()) != nil, let request = try? reader.u8(), let handle = try? reader.u16le(),
            let raw = try? reader.u8()
        else { return }
        if raw == 0x0a, Self.discoveryRequests.contains(request) { return }
        facts.errors += 1
        let error = ATTErrorCode(rawValue: raw)
        let client = direction.opposite.sender
        // Invalid Handle on 0x0000 is the client's bug, not a stale cache.
        let advice =
            raw == 0x01 && handle == 0
            ? "0x0000 is no attribute's handle: \(client) sent a handle it never set (a bug in its app or stack)"
            : error.advice(server: direction.sender, client: client)
        out.diagnostics.append(
            Diagnostic(
                LifecycleDiagnostics.attError,
                "\(direction.sender) refused \(client)'s \(ATTOpcode(rawValue: request).name) on \(Hex.value(handle, width: 4)): \(error.name)\(advice.map { "; \($0)" } ?? "")",
                fields: [("error_code", .hex(raw)), ("att_handle", .hex(handle))]))
    }

    /// A value longer than ATT_MTU − 3 (Core Vol 3 Part F §3.4.5.1, §3.4.7.1, §3.4.7.2), or than
    /// `limit`: a write no server accepts, a notification, indication or read response no client
    /// expects. The MTU is known when it was exchanged in the capture, or the link began in it (23
    /// until exchanged).
    private func checkLength(
        _ length: Int, _ opcode: ATTOpcode, _ handle: UInt16, _ direction: Direction, _ out: inout ATTResult,
        limit: Int? = nil
    ) {
        let limit = limit ?? bearer.mtu - 3
        guard length > limit, facts.mtu != nil || !facts.inferred else { return }
        let place = opcode == .writeRequest || opcode == .writeCommand ? "to" : "of"
        out.diagnostics.append(
            Diagnostic(
                LifecycleDiagnostics.valueTooLong,
                "\(direction.sender)'s \(opcode.name) of \(length) bytes \(place) \(Hex.value(handle, width: 4)); ATT_MTU is \(bearer.mtu), so at most \(limit) fit",
                fields: [("length", .int(length)), ("mtu", .int(bearer.mtu))]))
    }
}

extension Lifecycle {
    /// The bearer's facts, when the connection closes or is summarised.
    mutating func take(_ f: ATTFacts) {
        attMTU = f.mtu ?? attMTU
        firstATT = f.first
        discovery = f.discovery
        subscriptions = f.subscriptions
        attErrors = f.errors
    }

}
