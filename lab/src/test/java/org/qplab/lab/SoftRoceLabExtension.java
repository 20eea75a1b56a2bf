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
import org.junit.platform.commons.annotation.Testable;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.opentest4j.TestAbortedException;

/**
 * {@code @ExtendWith(SoftRoceLabExtension.class)}: boots one two-VM lab for the whole test run (the first test or
 * {@code @BeforeAll} method that asks for a {@link SoftRoceLab} parameter boots it; it goes down when the run ends). A
 * failed boot fails every test that asks, with the same report, without booting again.
 *
 * <p>Where the lab cannot run ({@link LabAvailability}) the class is disabled with the reason: nothing of it runs (no
 * instance, no {@code @BeforeAll}, no Spring context), surefire and failsafe report each of its tests as skipped with
 * that reason (an assumption that aborts the class would report none), and at the end of the run one line on the
 * console says how many tests skipped and why. Under {@code CI=true}, a lab that cannot run although no prerequisite
 * is missing fails each class instead, and so does a lab test that skips itself while the lab is up.
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
        if (context.getTestMethod().isPresent() || lab.available() || lab.failsUnder(environment)) {
            return ConditionEvaluationResult.enabled("the Soft-RoCE lab can run (or must, under CI)");
        }
        context.getTestClass().ifPresent(testClass -> skips(context).count(testClass));
        return ConditionEvaluationResult.disabled(lab.skipMessage());
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        LabAvailability lab = skips(context).lab();
        if (lab.failsUnder(environment)) {
            throw new IllegalStateException(lab.ciFailureMessage());
        }
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

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return shared(context);
    }

    /** The run's lab, booted on first use; closed with the root context at the end of the run. */
    public static SoftRoceLab shared(ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE).computeIfAbsent(Boot.class, key -> Boot.attempt(), Boot.class).lab();
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

        /** Counts the test methods of a skipped class (@Test, @ParameterizedTest, … are all @Testable). */
        void count(Class<?> testClass) {
            skipped.addAndGet(AnnotationSupport.findAnnotatedMethods(testClass, Testable.class,
                    HierarchyTraversalMode.TOP_DOWN).size());
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
