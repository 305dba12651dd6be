/// Bytes held by unconfirmed guesses about what channels carry, all channels and layers together
/// (`--limit guess-bytes`): shared by the L2CAP layer (RFCOMM guesses) and the iAP2 layer.
final class GuessBudget {
    var heldBytes = 0
}
