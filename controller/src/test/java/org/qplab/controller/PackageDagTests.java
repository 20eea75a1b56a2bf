package org.qplab.controller;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The packages of the controller form a DAG, and so do the agent's (ARCHITECTURE.md draws both): a package never
 * reaches, directly or round about, a package that reaches it. The controller uses of the agent daemon only the engine
 * binding it checks matrices with, never the daemon itself. Main classes only: a test may reach anywhere.
 */
class PackageDagTests {

    private static final JavaClasses CONTROLLER = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("org.qplab.controller");
    private static final JavaClasses AGENT = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("org.qplab.agent");

    /**
     * What the controller may use of the agent's classes (with their nested classes): the engine's spec check and its
     * rules (experiment/SpecCheck, EngineRulesDocument, HostCapabilities), its schema's keys and defaults
     * (experiment/ProviderKeys, run/RunIntervals) and the nvmeof provider's keys, defaults and check.
     */
    static final Set<String> ENGINE_BINDING = Set.of("org.qplab.agent.engine.Engine",
            "org.qplab.agent.engine.SpecViolation", "org.qplab.agent.nvmeof.NvmeofSpec");

    @Test
    void controllerPackagesFormADag() {
        slices().assignedFrom(packagesUnder("org.qplab.controller")).should().beFreeOfCycles().check(CONTROLLER);
    }

    @Test
    void agentPackagesFormADag() {
        slices().assignedFrom(packagesUnder("org.qplab.agent")).should().beFreeOfCycles().check(AGENT);
    }

    @Test
    void controllerUsesOfTheAgentOnlyTheEngineBinding() {
        DescribedPredicate<JavaClass> binding = DescribedPredicate.describe("the engine binding " + ENGINE_BINDING,
                c -> ENGINE_BINDING.contains(c.getName())
                        || ENGINE_BINDING.stream().anyMatch(name -> c.getName().startsWith(name + "$")));
        noClasses().that().resideInAPackage("org.qplab.controller..")
                .should().dependOnClassesThat(resideInAPackage("org.qplab.agent..").and(not(binding)))
                .check(CONTROLLER);
    }

    @Test
    void rulesSeeEveryPackage() { // an import that found nothing would pass every rule above
        assertThat(CONTROLLER.stream().map(JavaClass::getPackageName).distinct())
                .contains("org.qplab.controller", "org.qplab.controller.agent", "org.qplab.controller.schedule")
                .hasSizeGreaterThanOrEqualTo(17);
        assertThat(AGENT.stream().map(JavaClass::getPackageName).distinct())
                .contains("org.qplab.agent", "org.qplab.agent.engine", "org.qplab.agent.nvmeof");
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
