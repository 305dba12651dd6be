import BTLensCore

extension DissectorLayer {
    /// The token a frame carries for a dissector that pairs by one (`match: field` or `echo`),
    /// read by decoding it: only such dissectors pay for it.
    func token(
        _ f: borrowing Frame, _ command: UInt16?, _ d: BoundDissector, _ direction: Direction, _ uuid: BluetoothUUID?
    ) -> String? {
        guard d.pairsByToken else { return nil }
        return d.base.pairingToken(
            Message(
                command: command, flags: f.flags, payload: f.payload, direction: direction, characteristic: uuid))
    }
}
