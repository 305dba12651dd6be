extension Lifecycle {
    /// An AVDTP stream endpoint of the peer: its codec, the state its last accepted signal left it
    /// in (AVDTP 1.3 §9.1), and the media counted while it streamed.
    public struct AudioStream: Sendable, Equatable {
        public var seid: UInt8
        public var codec: String?
        /// `configured`, `open`, `streaming` or `idle`.
        public var state: String
        public var step: Step
        public var packets = 0
        public var bytes = 0
    }

    /// An accepted signal: the endpoint's new state (nil: unchanged, as a Reconfigure leaves it).
    mutating func audioStream(seid: UInt8, codec: String?, state: String?, _ step: Step) {
        guard let i = audioStreams.firstIndex(where: { $0.seid == seid }) else {
            return audioStreams.append(
                AudioStream(seid: seid, codec: codec, state: state ?? "configured", step: step))
        }
        audioStreams[i].codec = codec ?? audioStreams[i].codec
        if let state {
            audioStreams[i].state = state
            audioStreams[i].step = step
        }
    }

    mutating func audioMedia(seid: UInt8, packets: Int, bytes: Int) {
        guard let i = audioStreams.firstIndex(where: { $0.seid == seid }) else { return }
        audioStreams[i].packets += packets
        audioStreams[i].bytes += bytes
    }
}
