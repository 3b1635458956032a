#if Server
    internal import HTTPTypes
    internal import HummingbirdCore
    internal import NIOCore
    internal import Synchronization

    /// When an event stream last wrote to its client: the keep-alive comment is due only after
    /// a whole keep-alive interval without any write (issue 24: a stream busy sending events
    /// sent one every interval anyway).
    final class StreamActivity: Sendable {
        private let start = ContinuousClock.now
        /// Nanoseconds from `start` to the end of the last write.
        private let lastWrite = Atomic<Int64>(0)

        /// Records a write that has just ended.
        func wrote() {
            lastWrite.store(ShelfServer.nanoseconds(ContinuousClock.now - start), ordering: .relaxed)
        }

        /// When the last write ended (the stream's start before any).
        var lastWriteTime: ContinuousClock.Instant {
            start + .nanoseconds(lastWrite.load(ordering: .relaxed))
        }

        /// Runs until cancelled: calls `keepAlive` each time `interval` has passed without a
        /// write, and waits again from the last write otherwise.
        func requestKeepAlives(every interval: Duration, _ keepAlive: () -> Void) async throws {
            var due = lastWriteTime + interval
            while true {
                try await Task.sleep(until: due, clock: .continuous)
                let quietUntil = lastWriteTime + interval
                if quietUntil <= .now {
                    keepAlive()
                    due = ContinuousClock.now + interval
                } else {
                    due = quietUntil
                }
            }
        }
    }

    /// A response body writer that records in `activity` when each of its writes ends.
    struct ActivityRecordingWriter: ResponseBodyWriter {
        var base: any ResponseBodyWriter
        let activity: StreamActivity

        mutating func write(_ buffer: ByteBuffer) async throws {
            try await base.write(buffer)
            activity.wrote()
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
            try await base.finish(trailingHeaders)
        }
    }
#endif
