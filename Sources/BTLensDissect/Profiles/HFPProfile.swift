/// HFP's and HSP's identity, on their RFCOMM channels: an AT line shown as sent; the audio link's
/// connection and disconnection by name.
extension ProfileDescriptor {
    static let hfp = ProfileDescriptor(type: "hfp", layer: "HFP", parameters: hfpParameters) { m in
        guard let line = m.string("line") else { return ProfileHeading(m.name) }
        return ProfileHeading(line, said: ["line", "kind", "command", "form", "arguments", "rfcomm_channel"])
    }

    /// The parameters of `hfp` events (docs/jsonl.md), the eSCO link's included.
    private static let hfpParameters: Set<String> = [
        "line", "form", "arguments", "features", "codecs", "codec", "gain", "codec_record", "sco_handle", "air_mode",
    ]
}

extension Profile {
    static let hfp = Profile(.hfp)
}
