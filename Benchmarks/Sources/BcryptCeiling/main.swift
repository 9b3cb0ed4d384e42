// The raw bcrypt ceiling of this machine: how many password verifications per second the same
// bcrypt implementation the server uses can do on N threads with nothing else running.
// Usage: bcrypt-ceiling [threads] [seconds] [cost]
import Foundation
import HummingbirdBcrypt
import Synchronization

let arguments = CommandLine.arguments
let threads = arguments.count > 1 ? Int(arguments[1]) ?? 2 : ProcessInfo.processInfo.activeProcessorCount
let seconds = arguments.count > 2 ? Double(arguments[2]) ?? 5 : 5
let cost = arguments.count > 3 ? UInt8(arguments[3]) ?? 10 : 10

let hash = Bcrypt.hash("benchmark password", cost: cost)
let count = Atomic<Int>(0)
let deadline = Date().addingTimeInterval(seconds)
let group = DispatchGroup()
let start = Date()
for _ in 0..<threads {
    group.enter()
    Thread.detachNewThread {
        while Date() < deadline {
            precondition(Bcrypt.verify("benchmark password", hash: hash))
            count.add(1, ordering: .relaxed)
        }
        group.leave()
    }
}
group.wait()
let elapsed = Date().timeIntervalSince(start)
let perSecond = Double(count.load(ordering: .relaxed)) / elapsed
print(String(format: "%.1f", perSecond))
