import BTLensDissect
import BTLensTestSupport
import XCTest

/// Each top event of a sniffer capture as "#record type name" (diagnostics by id): what the link
/// layer tests compare.
func llLines(_ events: [Event]) -> [String] {
    events.filter(\.isTop).compactMap { e in
        switch e.body {
        case .profile(let m): return "#\(e.record) ll \(m.name)"
        case .att(let a): return "#\(e.record) att \(a.opcode.name)"
        case .smp(let s): return "#\(e.record) smp \(s.name)"
        case .connection(let c): return "#\(e.record) connection \(c.change.rawValue)"
        case .diagnostic(let d): return "#\(e.record) ! \(d.id)"
        default: return nil
        }
    }
}

/// `runs` copies of `capture` with 1–4 random bytes changed past the file header, each decoded:
/// diagnostics, never a trap, and every event at a record of the capture.
func assertDamagedCopiesNeverTrap(
    _ capture: [UInt8], runs: Int, _ random: inout SplitMix, _ what: String, line: UInt = #line
) {
    for _ in 0..<runs {
        var bytes = capture
        for _ in 0...random.below(4) {
            bytes[24 + random.below(bytes.count - 24)] = UInt8(truncatingIfNeeded: random.next())
        }
        let events = (try? analyze(bytes)) ?? []
        XCTAssertTrue(events.allSatisfy { $0.record >= 0 }, what, line: line)
    }
}
