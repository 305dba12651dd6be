import BTLensDissect

extension DefinitionDissector {
    /// Whether a frame's flags mark its payload encrypted (the framing's `encrypted: {flag: …}`).
    func isEncrypted(flags: UInt8?) -> Bool {
        guard let flags, case .frames(let f) = framing, let mask = f.encryptedFlag else { return false }
        return flags & mask == mask
    }
}
