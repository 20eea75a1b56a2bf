package org.qplab.controller;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

/**
 * The packages of the controller form a DAG, and so do the agent's and the engine's (ARCHITECTURE.md draws them): a
 * package never reaches, directly or round about, a package that reaches it. The controller uses the engine module (the
 * binding and the providers' specs it checks matrices with), never the agent daemon: the daemon is a test-scoped
 * dependency of the controller only, so that the build can bundle its jar. Main classes only: a test may reach anywhere.
 */
class PackageDagTests {

    private static final JavaClasses CONTROLLER = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("org.qplab.controller");
    private static final JavaClasses AGENT = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("org.qplab.agent");
    private static final JavaClasses ENGINE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("org.qplab.engine");

    @Test
    void controllerPackagesFormADag() {
        slices().assignedFrom(packagesUnder("org.qplab.controller")).should().beFreeOfCycles().check(CONTROLLER);
    }

    @Test
    void agentPackagesFormADag() {
        slices().assignedFrom(packagesUnder("org.qplab.agent")).should().beFreeOfCycles().check(AGENT);
    }

    @Test
    void enginePackagesFormADag() {
        slices().assignedFrom(packagesUnder("org.qplab.engine")).should().beFreeOfCycles().check(ENGINE);
    }

    @Test
    void controllerNeverUsesTheAgentDaemon() {
        noClasses().that().resideInAPackage("org.qplab.controller..")
                .should().dependOnClassesThat(resideInAPackage("org.qplab.agent.."))
                .check(CONTROLLER);
    }

    @Test
    void rulesSeeEveryPackage() { // an import that found nothing would pass every rule above
        assertThat(CONTROLLER.stream().map(JavaClass::getPackageName).distinct())
                .contains("org.qplab.controller", "org.qplab.controller.agent", "org.qplab.controller.schedule")
                .hasSizeGreaterThanOrEqualTo(17);
        assertThat(AGENT.stream().map(JavaClass::getPackageName).distinct())
                .contains("org.qplab.agent", "org.qplab.agent.nvmeof");
        assertThat(ENGINE.stream().map(JavaClass::getPackageName).distinct())
                .contains("org.qplab.engine", "org.qplab.engine.nvmeof");
        assertThat(CONTROLLER.stream().flatMap(c -> c.getDirectDependenciesFromSelf().stream())
                .map(d -> d.getTargetClass().getPackageName()))
                .as("the controller uses the engine module, so the rule above has something to tell apart")
                .anyMatch(name -> name.startsWith("org.qplab.engine"));
    }

    /**
     * One slice per package right under root, its sub-packages included; root's own classes (the application class)
     * are a slice too, so that no package reaches back to them.
     */
    static SliceAssignment packagesUnder(String root) {
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                String name = javaClass.getPackageName();
                if (name.equals(root)) {
                    return SliceIdentifier.of(root);
                }
                if (!name.startsWith(root + ".")) {
                    return SliceIdentifier.ignore();
                }
                String below = name.substring(root.length() + 1);
                int dot = below.indexOf('.');
                return SliceIdentifier.of(root + "." + (dot < 0 ? below : below.substring(0, dot)));
            }

            @Override
            public String getDescription() {
                return "the packages under " + root;
            }
        };
    }
}
