import Dispatch
import Foundation
import Synchronization

/// Waits for SIGINT, SIGTERM or a broken output pipe, so long-running commands can return
/// normally and let their store clean up.
///
/// The signals are caught from the moment a termination is made: one that arrives while the
/// command is still starting (opening or filling a database) is not lost, and does not kill
/// the process before it can clean up.
final class Termination: Sendable {
    /// What the signal handlers share with `wait()`.
    private final class State: Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        /// The signal that ended the wait (SIGPIPE when output could not be written).
        let signalNumber = Mutex(Int32(0))

        func finish(_ number: Int32) {
            signalNumber.withLock { if $0 == 0 { $0 = number } }
            semaphore.signal()
        }
    }

    private let state = State()
    private let sources: Mutex<[any DispatchSourceSignal]>

    init() {
        var sources: [any DispatchSourceSignal] = []
        let state = self.state
        for number in [SIGINT, SIGTERM, SIGPIPE] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { state.finish(number) }
            source.resume()
            sources.append(source)
        }
        self.sources = Mutex(sources)
    }

    /// Ends the wait as if `number` had arrived.
    func finish(_ number: Int32) {
        state.finish(number)
    }

    /// Waits, without blocking the calling task, for one of the signals; returns its number.
    func wait() async -> Int32 {
        let state = self.state
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                state.semaphore.wait()
                continuation.resume()
            }
        }
        sources.withLock { sources in
            for source in sources { source.cancel() }
        }
        return state.signalNumber.withLock { $0 }
    }
}
