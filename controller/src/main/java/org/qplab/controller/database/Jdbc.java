package org.qplab.controller.database;

import java.util.concurrent.Callable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Where blocking database work runs: a bounded scheduler, never an event-loop thread.
 * As many threads as the connection pool has connections.
 */
@Component
public class Jdbc implements DisposableBean {

    private final Scheduler scheduler = Schedulers.newBoundedElastic(10, 100_000, "qplab-jdbc");

    public <T> Mono<T> call(Callable<T> work) {
        return Mono.fromCallable(work).subscribeOn(scheduler);
    }

    public Mono<Void> run(Runnable work) {
        return Mono.<Void>fromRunnable(work).subscribeOn(scheduler);
    }

    @Override
    public void destroy() {
        scheduler.dispose();
    }
}
