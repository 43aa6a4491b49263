import PodsPlayer

/// A part of podsd that runs beside the others until it is told to
/// finish. The composition root runs a list of them and finishes them in
/// the reverse of its order, so what others depend on goes last.
public protocol SessionService: Sendable {
    /// Runs until `finish()`.
    func run() async
    /// Makes `run()` end, after what it owes is saved.
    func finish() async
}

/// The player runs its pipeline's events until it shuts down, reporting
/// the last progress first: it finishes before what hears of it.
extension PlayerController: SessionService {
    public func finish() async { shutdown() }
}
