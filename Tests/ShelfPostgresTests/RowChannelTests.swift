#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import Synchronization
    import Testing

    /// The bounded hand-over between a task reading rows and a blocking thread consuming them.
    @Suite struct RowChannelTests {
        /// Runs `body` on a plain thread and waits for it.
        private func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                Thread { continuation.resume(with: Result { try body() }) }.start()
            }
        }

        private final class Counter: Sendable {
            let value = Atomic<Int>(0)
        }

        @Test func everyRowArrivesInOrderWhileTheProducerStaysAtMostABufferAhead() async throws {
            let channel = RowChannel<Int>(capacity: 64)
            let taken = Counter()
            let furthestAhead = Counter()
            let producer = Task {
                for row in 0..<10_000 {
                    _ = await channel.send(row)
                    let ahead = row + 1 - taken.value.load(ordering: .relaxed)
                    furthestAhead.value.store(
                        max(ahead, furthestAhead.value.load(ordering: .relaxed)), ordering: .relaxed)
                }
                channel.finish(throwing: nil)
            }
            let rows = try await onThread { () -> [Int] in
                var rows: [Int] = []
                while let batch = try channel.next() {
                    for row in batch {
                        rows.append(row)
                        taken.value.add(1, ordering: .relaxed)
                    }
                }
                return rows
            }
            await producer.value
            #expect(rows == Array(0..<10_000))
            // Rows in the buffer plus the batch being consumed.
            #expect(furthestAhead.value.load(ordering: .relaxed) <= 2 * channel.capacity + 1)
        }

        @Test func theProducersFailureReachesTheConsumer() async throws {
            struct Broken: Error {}
            let channel = RowChannel<Int>(capacity: 8)
            Task {
                _ = await channel.send(1)
                channel.finish(throwing: Broken())
            }
            let outcome = try await onThread { () -> String in
                var seen: [Int] = []
                do {
                    while let batch = try channel.next() { seen += batch }
                    return "ended"
                } catch is Broken {
                    return "broken after \(seen)"
                }
            }
            #expect(outcome == "broken after [1]")
        }

        @Test func stoppingReleasesAProducerWaitingOnAFullBuffer() async throws {
            let channel = RowChannel<Int>(capacity: 4)
            let producer = Task { () -> Int in
                var sent = 0
                for row in 0..<1_000 {
                    guard await channel.send(row) else { break }
                    sent += 1
                }
                return sent
            }
            let first = try await onThread { try channel.next() ?? [] }
            channel.stop()
            let sent = await producer.value
            #expect(!first.isEmpty)
            #expect(sent < 1_000)
        }
    }
#endif
