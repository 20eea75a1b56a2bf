package org.qplab.lab;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * {@code @ExtendWith(SoftRoceLabExtension.class)}: skips the class where the lab cannot run (naming
 * what is missing), else boots one two-VM lab for the whole test run (the first class that needs it
 * boots it; it goes down when the run ends) and passes it to test methods as a {@link SoftRoceLab}
 * parameter. A failed boot fails every class that asks, with the same report, without booting again.
 */
public final class SoftRoceLabExtension implements BeforeAllCallback, ParameterResolver {

    /** VMs in the shared lab: a server and a client. */
    public static final int VMS = 2;

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SoftRoceLabExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        SoftRoceLab.assumeAvailable();
        shared(context);
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
