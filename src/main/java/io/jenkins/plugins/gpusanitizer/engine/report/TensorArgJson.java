package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

public record TensorArgJson(String name, List<Long> shape, String dtype, String device, boolean index) {}
