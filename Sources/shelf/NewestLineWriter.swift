import Foundation
import Synchronization

/// Writes lines to standard output on a thread of its own, keeping only the newest line not
/// yet written: while the reader of stdout stalls (and a write blocks), newer lines replace
/// the waiting one instead of piling up in memory, and the caller (a property's observer)
/// never blocks, so a signal still stops the command. The live window's "latest value wins"
/// contract, as the server's slow-client mailbox keeps it.
final class NewestLineWriter: Sendable {
    private struct State {
        var pending: [UInt8]?
        var closed = false
    }

    /// What the writer thread does after a wake-up.
    private enum Next {
        case write([UInt8])
        case wait
        case stop
    }

    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)

    /// Starts the writer thread; `failed` is called once, on it, if a write fails.
    init(failed: @escaping @Sendable (any Error) -> Void) {
        Thread.detachNewThread { [self] in
            while true {
                ready.wait()
                // A wake-up can find no line: posts made while a write was under way each
                // signalled, and the first wake-up after it took the newest of them.
                let next = state.withLock { state -> Next in
                    if state.closed { return .stop }
                    guard let line = state.pending else { return .wait }
                    state.pending = nil
                    return .write(line)
                }
                let line: [UInt8]
                switch next {
                case .wait: continue
                case .stop: return
                case .write(let waiting): line = waiting
                }
                do {
                    try StandardOutput.write(line)
                } catch {
                    failed(error)
                    return
                }
            }
        }
    }

    /// Queues `line` (with its newline), replacing a line still waiting to be written.
    func post(_ line: [UInt8]) {
        state.withLock { $0.pending = line }
        ready.signal()
    }

    /// Stops the thread after the write in progress (a blocked one is abandoned with the process).
    func close() {
        state.withLock { $0.closed = true }
        ready.signal()
    }
}
