package org.qplab.lab;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.opentest4j.TestAbortedException;

/**
 * {@code @ExtendWith(SoftRoceLabExtension.class)}: boots one two-VM lab for the whole test run (the first test or
 * {@code @BeforeAll} method that asks for a {@link SoftRoceLab} parameter boots it; it goes down when the run ends). A
 * failed boot fails every test that asks, with the same report, without booting again.
 *
 * <p>Where the lab cannot run ({@link LabAvailability}) every test method is disabled with the reason, so each is
 * counted as skipped (a class skipped as a whole would report no tests at all), the class's own {@code @BeforeAll}
 * and {@code @AfterAll} methods do not run, and at the end of the run one line on the console says how many tests
 * skipped and why. Under {@code CI=true}, a lab that cannot run although no prerequisite is missing fails each
 * class instead, and so does a lab test that skips itself while the lab is up.
 */
public final class SoftRoceLabExtension implements ExecutionCondition, BeforeAllCallback, ParameterResolver,
        InvocationInterceptor {

    /** VMs in the shared lab: a server and a client. */
    public static final int VMS = 2;

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SoftRoceLabExtension.class);
    /**
     * The JVM's own stderr, not System.err: surefire and failsafe put System.out/err into report files
     * (redirectTestOutputToFile), but show what the forked JVM writes to its stderr on the build's console.
     */
    private static final PrintStream CONSOLE = new PrintStream(new FileOutputStream(FileDescriptor.err), true,
            StandardCharsets.UTF_8);

    private final Supplier<LabAvailability> availability;
    private final Map<String, String> environment;
    private final PrintStream console;

    public SoftRoceLabExtension() {
        this(LabAvailability::here, System.getenv(), CONSOLE);
    }

    /** For tests: a given answer of `lab check`, environment (CI) and console. */
    SoftRoceLabExtension(Supplier<LabAvailability> availability, Map<String, String> environment, PrintStream console) {
        this.availability = availability;
        this.environment = Map.copyOf(environment);
        this.console = console;
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        LabAvailability lab = skips(context).lab();
        if (context.getTestMethod().isEmpty() || lab.available() || lab.failsUnder(environment)) {
            return ConditionEvaluationResult.enabled("the lab is checked per test method, so that each skip counts");
        }
        skips(context).count();
        return ConditionEvaluationResult.disabled(lab.skipMessage());
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        LabAvailability lab = skips(context).lab();
        if (lab.failsUnder(environment)) {
            throw new IllegalStateException(lab.ciFailureMessage());
        }
    }

    /** The class's own @BeforeAll methods need the lab: where it cannot run they do not run either. */
    @Override
    public void interceptBeforeAllMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> method,
            ExtensionContext context) throws Throwable {
        proceedWhereTheLabRuns(invocation, context);
    }

    @Override
    public void interceptAfterAllMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> method,
            ExtensionContext context) throws Throwable {
        proceedWhereTheLabRuns(invocation, context);
    }

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> method,
            ExtensionContext context) throws Throwable {
        try {
            invocation.proceed();
        } catch (TestAbortedException skipped) {
            if (LabAvailability.isCi(environment)) {
                throw new AssertionError("CI=true and the Soft-RoCE lab is up, but this lab test skipped itself: "
                        + skipped.getMessage(), skipped);
            }
            throw skipped;
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == SoftRoceLab.class;
    }

    /** The lab; null only for the @BeforeAll/@AfterAll methods of a class whose tests are skipped, which do not run. */
    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return skips(context).lab().available() ? shared(context) : null;
    }

    /** The run's lab, booted on first use; closed with the root context at the end of the run. */
    public static SoftRoceLab shared(ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE).computeIfAbsent(Boot.class, key -> Boot.attempt(), Boot.class).lab();
    }

    private void proceedWhereTheLabRuns(Invocation<Void> invocation, ExtensionContext context) throws Throwable {
        if (skips(context).lab().available()) {
            invocation.proceed();
        } else {
            invocation.skip();
        }
    }

    private Skips skips(ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE)
                .computeIfAbsent(Skips.class, key -> new Skips(availability.get(), console), Skips.class);
    }

    /** The run's answer of `lab check` and the tests it skipped; the one console line at the end of the run. */
    private static final class Skips implements AutoCloseable {

        private final LabAvailability lab;
        private final PrintStream console;
        private final AtomicInteger skipped = new AtomicInteger();

        Skips(LabAvailability lab, PrintStream console) {
            this.lab = lab;
            this.console = console;
        }

        LabAvailability lab() {
            return lab;
        }

        void count() {
            skipped.incrementAndGet();
        }

        @Override
        public void close() {
            if (skipped.get() > 0) {
                console.println("Soft-RoCE lab: SKIPPED " + skipped.get() + " tests: " + lab.reason());
                console.flush();
            }
        }
    }

    /** The outcome of the one boot attempt: the lab, or why it failed. */
    private record Boot(SoftRoceLab booted, Exception failure) implements AutoCloseable {

        static Boot attempt() {
            try {
                return new Boot(SoftRoceLab.up(SoftRoceLab.defaultStateDir(), VMS), null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Boot(null, e);
            } catch (Exception e) {
                return new Boot(null, e);
            }
        }

        SoftRoceLab lab() {
            if (failure != null) {
                throw new IllegalStateException("the Soft-RoCE lab did not boot", failure);
            }
            return booted;
        }

        @Override
        public void close() {
            if (booted != null) {
                booted.close();
            }
        }
    }
}
