import BTLensCore
import BTLensDissect

/// What an event holds under a field's name, exactly as `JSONLRenderer` writes it (docs/jsonl.md):
/// the same keys for the same event types, absent where the renderer writes nothing, nil for
/// JSON's `null`. `JSONLFilterTests` checks that a filter selects the lines its JSON holds.
extension Field {
    /// `origin`: the first event's time, for `reltime`.
    func value(in e: Event, origin: Timestamp) -> FilterValue? {
        switch key {
        case .type: return .string(EventType(e).name)
        case .record: return .int(Int64(e.record))
        case .time: return .int(e.timestamp.microseconds)
        case .reltime:
            // Hostile timestamps saturate at Int64's ends (the readers): no reltime rather than a trap.
            let (us, overflow) = e.timestamp.microseconds.subtractingReportingOverflow(origin.microseconds)
            return overflow ? nil : .number(Double(us) / 1_000_000)
        case .direction: return e.direction.map { .string($0 == .sent ? "sent" : "received") }
        default: break
        }
        switch e.body {
        case .frame(let a): return frame(a, e)
        case .diagnostic(let d): return diagnostic(d, e)
        case .note(let category, let text):
            switch key {
            case .category: return .string(category)
            case .text: return .string(text)
            default: return nil
            }
        case .hciCommand(let c):
            switch key {
            case .opcode: return .int(Int64(c.opcode.rawValue))
            case .name: return .string(c.opcode.name)
            default: return parameter(c.fields)
            }
        case .hciEvent(let h):
            switch key {
            case .code: return .int(Int64(h.code.rawValue))
            case .subevent: return h.subevent.map { .int(Int64($0.rawValue)) }
            case .name: return .string(h.name)
            default: return parameter(h.fields)
            }
        case .connection(let c): return connectionChange(c)
        case .acl(let a):
            switch key {
            case .connection: return connection(e)
            case .boundary: return .int(Int64(a.boundary))
            case .length: return .int(Int64(a.length))
            default: return nil
            }
        case .l2cap(let l):
            switch key {
            case .connection: return connection(e)
            case .cid: return .int(Int64(l.cid))
            case .length: return .int(Int64(l.length))
            case .firstRecord: return .int(Int64(l.firstRecord))
            case .truncated: return l.truncated ? .bool(true) : nil
            default: return nil
            }
        case .l2capSignaling(let c):
            switch key {
            case .connection: return connection(e)
            case .code: return .int(Int64(c.code.rawValue))
            case .name: return .string(c.code.name)
            case .identifier: return .int(Int64(c.identifier))
            default: return parameter(c.fields)
            }
        case .smp(let p):
            switch key {
            case .connection: return connection(e)
            case .code: return .int(Int64(p.code))
            case .name: return .string(p.name)
            default: return parameter(p.fields)
            }
        case .profile(let m):
            switch key {
            case .connection: return connection(e)
            case .name: return .string(m.name)
            default: return parameter(m.fields)
            }
        case .log(let l):
            switch key {
            case .message: return .string(l.message)
            default: return parameter(l.fields)
            }
        case .logAlignment(let a): return parameter(a.fields)
        case .rfcomm(let f): return rfcomm(f, e)
        case .sdp(let s): return sdp(s, e)
        case .iap2(let p): return iap2(p, e)
        case .iap2Control(let c):
            switch key {
            case .connection: return connection(e)
            case .messageId: return .int(Int64(c.id))
            case .name: return .string(c.name)
            default: return parameter(c.fields)
            }
        case .iap2Identification(let i): return identification(i, e)
        case .att(let a): return att(a, e)
        case .gattValue(let g):
            switch key {
            case .connection: return connection(e)
            case .attHandle: return .int(Int64(g.handle))
            case .uuid: return g.uuid.map { .string($0.description) }
            case .uuidName: return g.uuid.flatMap(GATTNames.name).map { .string($0) }
            case .value: return .bytes(g.value[...])
            case .text: return g.text.map { .string($0) }
            case .firstRecord: return .int(Int64(g.firstRecord))
            default: return nil
            }
        case .undecoded(let u):
            switch key {
            case .connection: return connection(e)
            case .what: return .string(u.what)
            case .length: return .int(Int64(u.length))
            case .bytes: return .bytes(u.bytes[...])
            case .bytesCut: return .int(Int64(u.bytesCut))
            default: return nil
            }
        }
    }

    @inline(__always) private func connection(_ e: Event) -> FilterValue? {
        e.connection.map { .int(Int64($0)) }
    }

    /// A parameter of a packet or diagnostic, by name; nested names match nothing (parameters are scalars).
    private func parameter(_ fields: [(String, FieldValue)]) -> FilterValue? {
        guard rest.isEmpty, let v = fields.first(where: { $0.0 == path })?.1 else { return nil }
        switch v {
        case .int(let i), .hex(let i, _): return .int(i)
        case .string(let s): return .string(s)
        case .bool(let b): return .bool(b)
        case .bytes(let b): return .bytes(b[...])
        case .decimal(let units, let scale):
            var power = 1.0
            for _ in 0..<max(0, min(scale, 18)) { power *= 10 }
            return .number(Double(units) / power)
        }
    }

    private func frame(_ a: FrameInfo, _ e: Event) -> FilterValue? {
        switch key {
        case .connection: return connection(e)
        case .transport: return .string(a.transport.rawValue)
        case .attHandle: return a.attHandle.map { .int(Int64($0)) }
        case .uuid: return a.uuid.map { .string($0.description) }
        case .eaSession: return a.eaSession.map { .int(Int64($0)) }
        case .protocol: return a.protocolName.map { .string($0) }
        case .rfcommChannel: return a.rfcommChannel.map { .int(Int64($0)) }
        case .cid: return a.l2capChannel.map { .int(Int64($0.cid)) }
        case .parameter where path == "psm": return a.l2capChannel.map { .int(Int64($0.psm)) }
        case .framing: return a.isA5 ? nil : .string(a.framing ?? "value")
        case .command: return a.hasCommand ? .int(Int64(a.frame.command)) : nil
        case .sequence: return a.frame.sequence.map { .int(Int64($0)) }
        case .flags: return a.frame.flags.map { .int(Int64($0)) }
        case .payload: return .bytes(a.frame.payload[...])
        case .checksumOk: return a.frame.checksum == nil ? nil : .bool(a.frame.checksumOK)
        case .version: return a.frame.version.map { .int(Int64($0)) }
        case .checksum: return a.frame.checksum.map { .int(Int64($0)) }
        case .fragments: return a.frame.isPartOfMessage ? a.frame.fragment.map { .int(Int64($0.count)) } : nil
        default: break
        }
        // What the bound dissector said: written only when there is one.
        guard let dissector = a.dissector else { return nil }
        switch key {
        case .dissector: return .string(dissector)
        case .commandName: return a.messageName.map { .string($0) }
        case .kind: return a.messageKind.map { .string($0.rawValue) }
        case .fields:
            guard let d = a.decoded else { return nil }
            return MessagePath.value(d.fields, rest[...])
        case .flagsNames:
            guard rest.isEmpty, let d = a.decoded else { return nil }
            return .list(d.flagNames.map { .string($0) })
        case .responseTo: return a.pairing.map { .int(Int64($0.requestRecord)) }
        case .latencyMs: return a.pairing.map { .number(Double($0.latencyMicroseconds) / 1000) }
        default: return nil
        }
    }

    private func diagnostic(_ d: Diagnostic, _ e: Event) -> FilterValue? {
        switch key {
        case .id: return .string(d.id)
        case .severity: return .int(Int64(d.severity.rawValue))  // ordered: note < warning < error
        case .message: return .string(d.message)
        case .connection: return connection(e)
        case .packetOffset: return d.packetOffset.map { .int(Int64($0)) }
        default: return parameter(d.fields)
        }
    }

    private func connectionChange(_ c: ConnectionChange) -> FilterValue? {
        switch key {
        case .change: return .string(c.change.rawValue)
        case .connection: return .int(Int64(c.info.key.handle))
        case .controller: return .int(Int64(c.info.key.index))
        case .address: return c.info.address.map { .string($0.description) }
        case .transport: return .string(c.info.transport.rawValue)
        case .role: return .string(c.info.role.rawValue)
        case .inferred: return .bool(c.info.inferred)
        case .reason: return c.change == .closed ? c.code.map { .string($0.name) } : nil
        case .status: return c.change == .closed ? nil : c.code.map { .string($0.name) }
        case .openedRecord: return c.info.openedRecord.map { .int(Int64($0)) }
        default: return nil
        }
    }

    private func rfcomm(_ f: RFCOMMInfo, _ e: Event) -> FilterValue? {
        switch key {
        case .connection: return connection(e)
        case .dlci: return .int(Int64(f.dlci))
        case .frame: return .string(f.frame)
        case .pollFinal: return .bool(f.pollFinal)
        case .credits: return f.credits.map { .int(Int64($0)) }
        case .length: return .int(Int64(f.length))
        case .mux: return f.mux.map { .string($0) }
        default: return parameter(f.fields)
        }
    }

    private func sdp(_ s: SDPInfo, _ e: Event) -> FilterValue? {
        switch key {
        case .connection: return connection(e)
        case .pdu: return .string(s.pdu)
        case .transaction: return .int(Int64(s.transaction))
        case .services:
            guard let member = rest.first, rest.count == 1 else {
                return rest.isEmpty ? .list(s.services.map { _ in .object }) : nil
            }
            return .list(
                s.services.compactMap { service -> FilterValue? in
                    switch member {
                    case "name": return service.name.map { .string($0) }
                    case "classes": return .list(service.classes.map { .string($0) })
                    case "rfcomm_channel": return service.rfcommChannel.map { .int(Int64($0)) }
                    case "iap2": return .bool(service.isIAP2)
                    default: return nil
                    }
                })
        default: return parameter(s.fields)
        }
    }

    private func iap2(_ p: IAP2PacketInfo, _ e: Event) -> FilterValue? {
        switch key {
        case .connection: return connection(e)
        case .kind: return .string(p.kind)
        case .psn: return p.psn.map { .int(Int64($0)) }
        case .pan: return p.pan.map { .int(Int64($0)) }
        case .session: return p.session.map { .int(Int64($0)) }
        case .sessionType: return p.sessionType.map { .string($0) }
        case .payloadLength: return .int(Int64(p.payloadLength))
        case .detail: return p.detail.map { .string($0) }
        default: return nil
        }
    }

    private func identification(_ i: IAP2Identification, _ e: Event) -> FilterValue? {
        switch key {
        case .connection: return connection(e)
        case .name: return .string(i.name)
        case .model: return .string(i.model)
        case .manufacturer: return .string(i.manufacturer)
        case .serial: return .string(i.serial)
        case .firmware: return .string(i.firmware)
        case .hardware: return .string(i.hardware)
        case .protocols:
            switch rest {
            case []: return .list(i.protocols.map { _ in .object })
            case ["id"]: return .list(i.protocols.map { .int(Int64($0.id)) })
            case ["name"]: return .list(i.protocols.map { .string($0.name) })
            default: return nil
            }
        default: return nil
        }
    }

    private func att(_ a: ATTInfo, _ e: Event) -> FilterValue? {
        switch key {
        case .connection: return connection(e)
        case .opcode: return .int(Int64(a.opcode.rawValue))
        case .name: return .string(a.opcode.name)
        case .attHandle: return a.handle.map { .int(Int64($0)) }
        case .uuid: return a.uuid.map { .string($0.description) }
        case .uuidName: return a.uuid.flatMap(GATTNames.name).map { .string($0) }
        case .value: return a.value.map { .bytes($0) }
        case .truncated: return a.truncated ? .bool(true) : nil
        default: return parameter(a.fields)
        }
    }
}
