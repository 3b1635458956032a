import Dispatch
import Foundation
import Synchronization

/// Waits for SIGINT, SIGTERM or a broken output pipe, so long-running commands can return
/// normally and let their store clean up (the `--demo` database is deleted on release).
final class Termination: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    /// The signal that ended the wait (SIGPIPE when output could not be written).
    private let signalNumber = Mutex(Int32(0))

    /// Ends the wait as if `number` had arrived.
    func finish(_ number: Int32) {
        signalNumber.withLock { if $0 == 0 { $0 = number } }
        semaphore.signal()
    }

    /// Waits, without blocking the calling task, for one of the signals; returns its number.
    func wait() async -> Int32 {
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM, SIGPIPE] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in finish(number) }
            source.resume()
            sources.append(source)
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [self] in
                semaphore.wait()
                continuation.resume()
            }
        }
        for source in sources { source.cancel() }
        return signalNumber.withLock { $0 }
    }
}
