import BTLensDissect

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
