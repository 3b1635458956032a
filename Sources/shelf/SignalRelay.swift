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
///
/// A plain `sigaction` handler writes the signal's number to a pipe that a thread of the
/// relay reads; no dispatch source is used, because libdispatch on Linux does not deliver a
/// signal to a second source for it, and the terminal `Application` makes its own while it
/// runs (replacing this handler; `reinstall()` puts it back afterwards).
final class SignalRelay: Sendable {
    static let numbers = [SIGINT, SIGTERM, SIGHUP]

    /// The process's relay, catching from its first use (the start of `main`).
    static let shared = SignalRelay()

    /// The first signal received, or 0.
    private let first = Atomic<Int32>(0)
    /// True once the command's work is final (see `workIsFinal()`).
    private let final = Atomic<Bool>(false)
    private let handler = Mutex<(@Sendable (Int32) -> Void)?>(nil)

    private init() {
        let reader = signalPipe.read
        Thread.detachNewThread { [self] in
            var byte: UInt8 = 0
            while true {
                let count = read(reader, &byte, 1)
                if count == 1 {
                    received(Int32(byte))
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
        reinstall()
    }

    /// Installs the handler (again, after code that changed the signals' actions).
    func reinstall() {
        _ = signalPipe
        for number in Self.numbers {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = relaySignal
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
    }

    /// Calls `body` with the signal's number on the first signal (at once when one already came).
    func onSignal(_ body: @escaping @Sendable (Int32) -> Void) {
        handler.withLock { $0 = body }
        let number = first.load(ordering: .acquiring)
        if number != 0 { body(number) }
    }

    /// Says that the command's work is done and final (an import committed, an export's file
    /// in place): a signal that comes after it no longer makes the exit status 128 + N, which
    /// would tell a script that retries on it to do the work twice.
    func workIsFinal() {
        final.store(true, ordering: .releasing)
    }

    /// The signal that stopped the command: the first one received, unless it came when the
    /// work was already final; nil otherwise.
    var stoppingSignal: Int32? {
        final.load(ordering: .acquiring) ? nil : signal
    }

    /// The first signal received, if any.
    var signal: Int32? {
        let number = first.load(ordering: .acquiring)
        return number == 0 ? nil : number
    }

    private func received(_ number: Int32) {
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

/// The pipe from the signal handler to the relay's thread; made before any handler runs.
private let signalPipe: (read: Int32, write: Int32) = {
    var descriptors: [Int32] = [-1, -1]
    _ = pipe(&descriptors)
    for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    return (descriptors[0], descriptors[1])
}()

/// The handler: only async-signal-safe work, a one-byte write.
private func relaySignal(_ number: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipe.write, &byte, 1)
    errno = saved
}
