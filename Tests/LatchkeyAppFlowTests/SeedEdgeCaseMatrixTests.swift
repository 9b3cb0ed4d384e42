import Foundation
import Latchkey
import LatchkeyTestSupport
import Testing

@testable import LatchkeyAppFlow

/// Seed 001's edge-case matrix, row by row, against the real server: the route sequence and the
/// local data each user can see.
@Suite("App flow: seed 001 edge-case matrix", .timeLimit(.minutes(5)))
@MainActor
struct SeedEdgeCaseMatrixTests {
    let password = "correct horse battery"

    @Test("1. Fresh install → onboarding → login → verify → main, no data")
    func row1FreshLogin() async throws {
        try await withFlowAccount(autoconfirm: false) { server, app, email, userID in
            let launch = await app.launch()
            #expect(launch.router.route == .splash)
            await launch.router.start()
            #expect(launch.router.route == .onboarding)
            launch.router.completeOnboarding(next: .login)
            #expect(launch.router.route == .auth(.login))

            let form = launch.router.makeLoginForm()
            form.email = "  \(email) "
            form.password = password
            await form.submit()
            #expect(form.failure?.title == "Email Not Verified")
            #expect(form.failure?.action == .resendVerification)
            #expect(launch.router.route == .verifyEmail)
            #expect(launch.router.verificationEmail == email)

            try await server.clickConfirmationLink(for: email)
            await launch.router.confirmEmailVerified()
            #expect(launch.router.route == .main)
            #expect(launch.router.history == [.splash, .onboarding, .auth(.login), .verifyEmail, .main])
            #expect(await launch.waitForDataSpace(user: userID))
            #expect(fileNames(in: launch.dataSpace.area.directory).isEmpty)
        }
    }

    @Test("2. Fresh install → onboarding → sign-up → verify → main, no data")
    func row2FreshSignUp() async throws {
        try await withFlowServer(autoconfirm: false) { server in
            let app = FlowApp(server: server)
            let launch = await app.start()
            launch.router.completeOnboarding(next: .signUp)
            #expect(launch.router.route == .auth(.signUp))

            let email = uniqueEmail("new")
            let form = launch.router.makeSignUpForm()
            form.email = email
            form.password = password
            await form.submit()
            #expect(form.outcome == .confirmationRequired(email: email))
            #expect(launch.router.route == .verifyEmail)

            await launch.router.confirmEmailVerified()
            #expect(launch.router.verificationStatus.failure?.category == .emailNotConfirmed, "not clicked yet")
            #expect(launch.router.route == .verifyEmail)

            try await server.clickConfirmationLink(for: email)
            await launch.router.confirmEmailVerified()
            #expect(launch.router.route == .main)
            #expect(launch.router.history == [.splash, .onboarding, .auth(.signUp), .verifyEmail, .main])
            let userID = try #require(await launch.manager.currentSession?.user.id)
            #expect(await launch.waitForDataSpace(user: userID))
            #expect(fileNames(in: launch.dataSpace.area.directory).isEmpty)
        }
    }

    @Test("3. Logout → login same user: main → auth(login) → main, data remains")
    func row3SameUser() async throws {
        try await withFlowAccount { server, app, email, userID in
            let launch = await app.start()
            launch.router.completeOnboarding()
            #expect(await launch.logIn(email: email))
            #expect(await launch.waitForDataSpace(user: userID))
            try writeFile("challenges.sqlite", in: try #require(launch.dataSpace.area.directory))

            await launch.router.signOut()
            #expect(launch.router.route == .auth(.login))
            #expect(launch.dataSpace.currentUserID == nil, "closed by the sign-out cleanup step")
            #expect(await launch.logIn(email: email))
            #expect(await launch.waitForDataSpace(user: userID))
            #expect(fileNames(in: launch.dataSpace.area.directory) == ["challenges.sqlite"])
            #expect(Array(launch.router.history.suffix(3)) == [.main, .auth(.login), .main])
        }
    }

    @Test("4. Logout → login different user: only the new user's data", arguments: [UserDataSpace.SignOutPolicy.keep, .wipe])
    func row4OtherUser(policy: UserDataSpace.SignOutPolicy) async throws {
        try await withFlowServer { server in
            let first = uniqueEmail("first")
            let second = uniqueEmail("second")
            let firstID = try await server.createAccount(email: first, password: password)
            let secondID = try await server.createAccount(email: second, password: password)
            let app = FlowApp(server: server)
            app.signOutPolicy = policy
            let launch = await app.start()
            launch.router.completeOnboarding()
            #expect(await launch.logIn(email: first))
            #expect(await launch.waitForDataSpace(user: firstID))
            let firstDirectory = try #require(launch.dataSpace.area.directory)
            try writeFile("challenges.sqlite", in: firstDirectory, contents: "first user's challenges")

            await launch.router.signOut()
            #expect(launch.router.route == .auth(.login))
            #expect(await launch.logIn(email: second))
            #expect(await launch.waitForDataSpace(user: secondID))
            let secondDirectory = try #require(launch.dataSpace.area.directory)
            #expect(secondDirectory != firstDirectory)
            #expect(fileNames(in: secondDirectory).isEmpty, "none of the first user's data")
            let firstFileExists = FileManager.default.fileExists(atPath: firstDirectory.appendingPathComponent("challenges.sqlite").path)
            #expect(firstFileExists == (policy == .keep), "kept for the first user's return, or wiped")
        }
    }
}
