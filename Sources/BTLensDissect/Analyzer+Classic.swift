import BTLensCore
import BTLensCapture

/// The BR/EDR path: L2CAP signalling, SDP, RFCOMM, and iAP2 on RFCOMM channels.
extension Analyzer {
    func sdp(_ payload: ArraySlice<UInt8>, _ key: ACLKey, _ r: CaptureRecord) {
        var decoder = sdpDecoders.removeValue(forKey: key) ?? SDPDecoder()
        let (info, diagnostics) = decoder.decode(payload)
        sdpDecoders[key] = decoder
        if let info {
            emit(Event(record: r.number, timestamp: r.timestamp, direction: key.direction, connection: key.connection.handle,
                       isTop: true, body: .sdp(info)))
            for s in info.services {
                guard let ch = s.rfcommChannel else { continue }
                if let bound = s.classUUIDs.lazy.compactMap({ self.dissectors.lookup(.rfcommService($0)) }).first {
                    for dlci in [ch << 1, ch << 1 | 1] { rfcommBindings[ChannelKey(connection: key.connection, dlci: dlci)] = bound }
                }
                guard s.isIAP2 else { continue }
                for dlci in [ch << 1, ch << 1 | 1] {
                    let ck = ChannelKey(connection: key.connection, dlci: dlci)
                    iap2ServerChannels.insert(ck)
                    notIAP2.remove(ck)
                }
            }
        }
        for d in diagnostics { say(r, key.connection.handle, d, key.direction) }
    }

    func signaling(_ pdu: L2CAPPDU, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord) {
        let (commands, diagnostics) = channels.decode(pdu.payload, connection: key, direction: direction)
        for c in commands {
            emit(Event(record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle,
                       isTop: true, body: .l2capSignaling(c)))
        }
        for d in diagnostics { say(r, key.handle, d, direction) }
    }

    func rfcomm(_ payload: ArraySlice<UInt8>, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord) {
        let frame: RFCOMMFrame
        do {
            frame = try RFCOMMFrame.parse(payload)
        } catch {
            var d = Diagnostic(RFCOMMDiagnostics.malformed,
                               "RFCOMM frame of \(payload.count) bytes: needs \(error.needed) more at offset \(error.offset), \(error.available) left",
                               fields: [("offset", .int(error.offset))], packetOffset: error.offset)
            d.undecodedBytes = payload.count
            return say(r, key.handle, d, direction)
        }
        var info = RFCOMMInfo(dlci: frame.dlci, frame: frame.type?.name ?? "Unknown (\(Hex.value(frame.control, width: 2)))",
                              pollFinal: frame.pollFinal, credits: frame.credits, length: frame.information.count)
        if frame.dlci == 0, frame.type == .uih, let mux = try? RFCOMMMuxCommand.parse(frame.information) {
            info.mux = mux.name
            info.fields = [(mux.isCommand ? "command" : "response", .bytes(Array(mux.values)))]
        }
        // Data frames on a data channel are lower-layer detail: what they carry is shown above them.
        let carriesData = frame.type == .uih && frame.dlci != 0 && !frame.information.isEmpty
        emit(Event(record: r.number, timestamp: r.timestamp, direction: direction, connection: key.handle, isTop: !carriesData,
                   body: .rfcomm(info)))
        if frame.fcs != frame.expectedFCS {
            say(r, key.handle, Diagnostic(RFCOMMDiagnostics.fcsBad,
                                          "DLCI \(frame.dlci) \(info.frame): FCS \(Hex.value(frame.fcs, width: 2)), expected \(Hex.value(frame.expectedFCS, width: 2))",
                                          fields: [("expected", .int(frame.expectedFCS)), ("actual", .int(frame.fcs))]), direction)
        }
        if frame.type == .uih, frame.dlci != 0, !frame.information.isEmpty {
            channelData(frame, key, direction, r)
        }
    }

    // MARK: iAP2

    func channelData(_ frame: RFCOMMFrame, _ key: ConnectionKey, _ direction: Direction, _ r: CaptureRecord) {
        let ck = ChannelKey(connection: key, dlci: frame.dlci)
        if let bound = rfcommBindings[ck] {
            return rfcommMessages(frame.information, ck, bound, direction, r.number, r.timestamp)
        }
        if notIAP2.contains(ck) { return undecoded(r, key.handle, "RFCOMM channel \(frame.channel)", frame.information) }
        if iap2Links[ck] == nil, iap2Guesses[ck] == nil {
            if decodeAs.contains(.rfcommIAP2(channel: frame.channel)) {
                iap2Links[ck] = IAP2Link()
            } else {
                // SDP's word is a guess too: the data may contradict it.
                iap2Guesses[ck] = IAP2Guess(fromSDP: iap2ServerChannels.contains(ck))
            }
        }
        if iap2Guesses[ck] != nil {
            return guessIAP2(ck, HeldData.Piece(record: r.number, time: r.timestamp, direction: direction,
                                                bytes: Array(frame.information)))
        }
        push(frame.information, ck, direction, r.number, r.timestamp)
    }

    /// Bytes for a channel's iAP2 link, its outputs as events.
    func push(_ bytes: ArraySlice<UInt8>, _ ck: ChannelKey, _ direction: Direction, _ record: Int, _ time: Timestamp) {
        guard var link = iap2Links.removeValue(forKey: ck) else { return }
        let outputs = link.push(bytes, direction: direction, time: time)
        iap2Links[ck] = link
        for o in outputs { iap2(o, ck, direction, record, time) }
    }

    func iap2(_ o: IAP2Link.Output, _ ck: ChannelKey, _ direction: Direction, _ record: Int, _ time: Timestamp) {
        let handle = ck.connection.handle
        func event(_ body: EventBody, top: Bool = true) {
            emit(Event(record: record, timestamp: time, direction: direction, connection: handle, isTop: top, body: body))
        }
        switch o {
        // DATA and bare ACK packets are link detail; what DATA carries is shown as its own event.
        case .packet(let p): event(.iap2(p), top: p.kind != "DATA" && p.kind != "ACK")
        case .control(let c): event(.iap2Control(c))
        case .identification(let i): event(.iap2Identification(i))
        case .diagnostic(let d): event(.diagnostic(d))
        case .ea(let session, let protocolName, let bytes):
            let key = EAKey(connection: ck.connection, session: session, direction: direction)
            let bound = protocolName.flatMap { dissectors.lookup(.eaProtocol($0)) }
            var s = eaStreams.removeValue(forKey: key)
                ?? BoundStream(bound?.dissector, framing: bound?.framing, detect: bound == nil, direction: direction,
                               messageLimit: limits.messageBytes, keepsPayloads: bound != nil || valueBytes)
            s.push(bytes, at: RecordPlace(record: record, time: time)) { o, label in ea(o, key, label, protocolName, record, time) }
            eaStreams[key] = s
        }
    }

    func ea(_ output: consuming A5Stream.Output, _ key: EAKey, _ stream: BoundStream.Label, _ protocolName: String?, _ record: Int,
            _ time: Timestamp) {
        a5Event(output, stream: ("ea_session", .int(key.session)), bound: stream,
                pairKey: stream.dissectorName.map { PairKey(connection: key.connection, dissector: $0, scope: .eaSession(key.session)) },
                direction: key.direction, connection: key.connection.handle, record: record, time: time) { f, naming in
            A5FrameInfo(frame: f, transport: .iap2, eaSession: key.session, protocolName: protocolName, naming)
        }
    }

    /// An RFCOMM channel whose SDP service class a dissector binds.
    func rfcommMessages(_ bytes: ArraySlice<UInt8>, _ ck: ChannelKey, _ bound: (dissector: any MessageDissector, framing: Framing),
                        _ direction: Direction, _ record: Int, _ time: Timestamp) {
        let key = RFCOMMStreamKey(channel: ck, direction: direction)
        var s = rfcommStreams.removeValue(forKey: key)
            ?? BoundStream(bound.dissector, framing: bound.framing, detect: false, direction: direction,
                           messageLimit: limits.messageBytes)
        s.push(bytes, at: RecordPlace(record: record, time: time)) { o, label in rfcomm(o, key, label, record, time) }
        rfcommStreams[key] = s
    }

    func rfcomm(_ output: consuming A5Stream.Output, _ key: RFCOMMStreamKey, _ stream: BoundStream.Label, _ record: Int, _ time: Timestamp) {
        let ck = key.channel
        a5Event(output, stream: ("dlci", .int(ck.dlci)), bound: stream,
                pairKey: stream.dissectorName.map { PairKey(connection: ck.connection, dissector: $0, scope: .rfcomm(dlci: ck.dlci)) },
                direction: key.direction, connection: ck.connection.handle, record: record, time: time) { f, naming in
            A5FrameInfo(frame: f, transport: .rfcomm, rfcommChannel: ck.dlci >> 1, naming)
        }
    }

    /// RFCOMM streams of a connection end: partial frames are reported, state is freed.
    func endRFCOMM(_ connection: ConnectionKey?, record: Int, time: Timestamp, reason: String) {
        for key in rfcommStreams.keys.filter({ connection == nil || $0.channel.connection == connection }).sorted() {
            guard var s = rfcommStreams.removeValue(forKey: key) else { continue }
            for o in s.finish(reason: reason) { rfcomm(o, key, s.label, record, time) }
        }
        rfcommBindings = rfcommBindings.filter { connection != nil && $0.key.connection != connection }
    }

    /// The link's channel ends: partial packets and EA frames are reported, state is freed.
    func endIAP2(_ ck: ChannelKey, record: Int, time: Timestamp, reason: String) {
        guard let link = iap2Links.removeValue(forKey: ck) else { return }
        for (direction, skipped, partial) in link.leftovers() {
            var ds: [Diagnostic] = []
            if skipped > 0 {
                var d = Diagnostic(IAP2Diagnostics.resync, "skipped \(skipped) bytes that form no iAP2 packet before \(reason)",
                                   fields: [("skipped_bytes", .int(skipped))])
                d.undecodedBytes = skipped
                ds.append(d)
            }
            if let (have, need) = partial {
                var d = Diagnostic(IAP2Diagnostics.truncated, "stream ended by \(reason) inside an iAP2 packet: \(have) of \(need) bytes",
                                   fields: [("have", .int(have)), ("need", .int(need))])
                d.undecodedBytes = have
                ds.append(d)
            }
            for d in ds {
                emit(Event(record: record, timestamp: time, direction: direction, connection: ck.connection.handle,
                           isTop: true, body: .diagnostic(d)))
            }
        }
        for key in eaStreams.keys.filter({ $0.connection == ck.connection }).sorted() {
            guard var s = eaStreams.removeValue(forKey: key) else { continue }
            for o in s.finish(reason: reason) { ea(o, key, s.label, nil, record, time) }
        }
    }
}
