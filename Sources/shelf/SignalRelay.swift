import Dispatch
import Foundation
import Synchronization

/// Turns SIGINT, SIGTERM and SIGHUP into the cancellation of the running command, for the
/// whole life of the process, so every command ends by returning: its store is released (the
/// last connection checkpoints and removes the `-wal` file) before the process exits with
/// 128 + the signal's number.
///
/// The signals are caught from the moment the relay exists: one that arrives while a
/// command is still starting is not lost. A second signal, while the command is still
/// stopping, ends the process at once.
final class SignalRelay: Sendable {
    static let numbers = [SIGINT, SIGTERM, SIGHUP]

    /// What the signal sources share with the relay.
    private final class State: Sendable {
        /// The first signal received, or 0.
        let first = Atomic<Int32>(0)
        let handler = Mutex<(@Sendable (Int32) -> Void)?>(nil)

        func received(_ number: Int32) {
            let (exchanged, original) = first.compareExchange(
                expected: 0, desired: number, ordering: .acquiringAndReleasing)
            guard exchanged else {
                // Asked twice: stop now, without waiting for the command.
                _exit(128 + original)
            }
            let body = handler.withLock { $0 }
            body?(number)
        }
    }

    private let state = State()
    private let sources: Mutex<[any DispatchSourceSignal]>

    init() {
        Self.ignoreSignals()
        var sources: [any DispatchSourceSignal] = []
        let state = self.state
        for number in Self.numbers {
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { state.received(number) }
            source.resume()
            sources.append(source)
        }
        self.sources = Mutex(sources)
    }

    deinit {
        sources.withLock { sources in
            for source in sources { source.cancel() }
        }
    }

    /// Calls `body` with the signal's number on the first signal (at once when one already came).
    func onSignal(_ body: @escaping @Sendable (Int32) -> Void) {
        state.handler.withLock { $0 = body }
        let number = state.first.load(ordering: .acquiring)
        if number != 0 { body(number) }
    }

    /// The first signal received, if any.
    var signal: Int32? {
        let number = state.first.load(ordering: .acquiring)
        return number == 0 ? nil : number
    }

    /// Leaves the signals to the relay's sources again, after code that reset them to their
    /// default action (the terminal `Application` does when it ends).
    static func ignoreSignals() {
        for number in numbers { Foundation.signal(number, SIG_IGN) }
    }
}
